import { ROLES } from '../../config/roles';
import { avatarOf } from '../domain/accounts/avatar';
import { dndMinutesLeft, type Preferences } from '../domain/notifications/preferences';
import type { SavedSubscription } from '../domain/push/subscriptions';
import type { LiveVisitorRow } from '../domain/visitors/liveVisitors';
import type { AccessToken, CannedReply, Company, Tag, User } from '../models';
import { displayTime } from './displayTime';
import { isoWithOffset } from './time';

/** The user shape of the agent app: the role as its label ("Agent"), and an avatar URL. */
export const presentAgentUser = (user: User) => ({
  id: user.id,
  name: user.name,
  email: user.email,
  role: ROLES[user.role]?.label ?? user.role,
  avatar: avatarOf(user),
});

/** The company shape of the agent app; `plan` is the stored name (`pro`), as on the portal. */
export const presentAgentCompany = (company: Company) => ({ id: company.id, name: company.name, plan: company.plan });

/** What `me` shows about the calling token and its holder. */
export const presentAgentSession = (token: AccessToken, user: User, company: Company) => ({
  user: presentAgentUser(user),
  company: presentAgentCompany(company),
  expires_at: isoWithOffset(token.expiresAt),
  device_name: token.deviceName ?? null,
});

/** Login and refresh: the new token first, then the session it opens. */
export const presentAgentToken = (plain: string, token: AccessToken, user: User, company: Company) => {
  const { user: userShape, company: companyShape, expires_at, device_name } = presentAgentSession(token, user, company);
  return { token: plain, expires_at, device_name, user: userShape, company: companyShape };
};

export const presentTag = (tag: Tag) => ({ id: tag.id, name: tag.name, color: tag.color });

export const presentCannedReply = (reply: CannedReply) => ({ id: reply.id, title: reply.title, shortcut: reply.shortcut, body: reply.body });

export const presentPushSubscription = (subscription: SavedSubscription) => ({
  id: subscription.id,
  endpoint: subscription.endpoint,
  device_name: subscription.deviceName,
});

/** Every field the preferences update takes, resolved; DND both as minutes left and as its end time. */
export function presentNotificationPreferences(prefs: Preferences, now = new Date()) {
  const dndMinutes = dndMinutesLeft(prefs.dndUntil, now);
  return {
    push_enabled: prefs.pushEnabled,
    sound_enabled: prefs.soundEnabled,
    vibrate_enabled: prefs.vibrateEnabled,
    email_enabled: prefs.emailEnabled,
    events: prefs.events,
    sound_pack: prefs.soundPack,
    volume: prefs.volume,
    quiet_hours_start: prefs.quietHoursStart,
    quiet_hours_end: prefs.quietHoursEnd,
    quiet_hours_tz: prefs.quietHoursTz,
    dnd_minutes: dndMinutes,
    dnd_until: dndMinutes > 0 && prefs.dndUntil ? isoWithOffset(prefs.dndUntil) : null,
    chatbot_filter: prefs.chatbotFilter,
  };
}

/** An internal note, as the note route answers it and the active conversation lists it. */
export const presentNote = (note: { id: number | string; body: string; at: Date }, author: string) => ({
  id: Number(note.id),
  body: note.body,
  author,
  at: displayTime(note.at),
});

/** One live visitor in the agent app's list: unknown facts are empty strings, times display strings. */
export const presentLiveVisitor = (visitor: LiveVisitorRow) => ({
  id: visitor.id,
  chatbot: visitor.chatbot,
  chatbot_id: visitor.chatbot_id,
  page: visitor.page ?? '',
  title: visitor.title ?? '',
  referrer: visitor.referrer ?? '',
  country: visitor.country ?? '',
  device: visitor.device ?? '',
  browser: visitor.browser ?? '',
  os: visitor.os ?? '',
  page_views: visitor.page_views,
  first_seen: displayTime(new Date(visitor.first_seen_at)),
  last_seen: displayTime(new Date(visitor.last_seen_at)),
  conversation_id: visitor.conversation_id,
  online: true,
});
