import { ROLE_NAMES, roleCan } from '../../../config/roles';
import { plainRows } from '../../db/plainRows';
import { User } from '../../models';
import { allowsPush, type NotificationEvent, type Preferences } from '../notifications/preferences';
import { loadPreferencesOf } from '../notifications/storedPreferences';
import type { PushEvent } from './events';

export interface PushRecipient {
  id: number;
  timezone: string | null;
}

/** Roles that handle conversations: only they hear about visitors (viewers read, they do not answer). */
const HANDLER_ROLES = ROLE_NAMES.filter((role) => roleCan(role, 'handle-conversations'));

/** Events about one conversation's ongoing exchange go to whoever holds it; the rest to every handler. */
const FOR_THE_ASSIGNEE: ReadonlySet<NotificationEvent> = new Set(['visitor_message', 'sla_breach', 'conversation_assigned']);

/**
 * Who may hear of this event (docs/push.md "Events and recipients"), before their own preferences: the
 * workspace's handlers who are not suspended, in a workspace that is not suspended. `visitor_message`,
 * `sla_breach` and `conversation_assigned` go to the assigned agent alone, or to all when nobody (who can still handle
 * conversations) holds it. `visitor_arrived` only while the chatbot is active and shows live visitors.
 */
export async function pushRecipients(event: PushEvent): Promise<PushRecipient[]> {
  // Prepared, as plain rows: every batch of arrivals on a site asks it (src/domain/push/openTabs.ts),
  // and its plan does not depend on the values (docs/performance.md, "Arrivals, fifth round").
  const handlers = await plainRows<PushRecipient>(
    User.sequelize!,
    `SELECT u.id, u.timezone
       FROM users u JOIN companies c ON c.id = u.company_id
      WHERE u.company_id = $1 AND u.suspended_at IS NULL AND c.suspended_at IS NULL AND u.role = ANY($4::text[])
        AND ($2::boolean OR EXISTS (
              SELECT 1 FROM chatbots b
               WHERE b.id = $3 AND b.company_id = u.company_id AND b.is_active
                 AND COALESCE((b.branding->>'live_visitors')::boolean, false)))
      ORDER BY u.id`,
    [event.companyId, event.event !== 'visitor_arrived', event.chatbotId, HANDLER_ROLES],
    { prepared: true },
  );
  if (!FOR_THE_ASSIGNEE.has(event.event) || event.assignedUserId === null) return handlers;
  const assignee = handlers.find((user) => user.id === event.assignedUserId);
  return assignee ? [assignee] : handlers;
}

/** The recipients whose own settings (push on, the event, DND, quiet hours, chatbot filter) let this event through now. */
export async function willingRecipients(event: PushEvent, now: Date): Promise<{ recipients: PushRecipient[]; allowed: PushRecipient[]; preferences: Map<number, Preferences> }> {
  const recipients = await pushRecipients(event);
  const preferences = await loadPreferencesOf(event.companyId, recipients);
  const allowed = recipients.filter((user) => allowsPush(preferences.get(user.id)!, event.event, event.chatbotId, now));
  return { recipients, allowed, preferences };
}
