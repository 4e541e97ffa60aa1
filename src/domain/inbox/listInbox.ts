import { QueryTypes } from 'sequelize';
import { Conversation } from '../../models';
import { filterSql, GROUP_SQL, type InboxFilter, type InboxGroup } from './groups';

/** At most this many rows per inbox response (`list_limit`). */
export const LIST_LIMIT = 60;

export interface InboxRow {
  id: string;
  chatbot: string;
  visitor_key: string;
  visitor_name: string | null;
  email: string | null;
  status: string;
  channel: string;
  last_message_at: Date;
  preview: string | null;
  escalated: boolean;
  unread: number;
  resolution: string | null;
  group: InboxGroup;
  handoff_state: string;
  assigned_user_id: number | null;
  assigned_to: string | null;
  last_seen_at: Date | null;
  handoff_requested_at: Date | null;
  tags: Array<{ id: number; name: string; color: string }>;
}

export interface InboxTotals {
  counts: { all: number; ai: number; human: number; resolved: number; unread: number };
  groups: Record<InboxGroup, number>;
}

const ROW_SQL = `
  SELECT c.public_id AS id, b.name AS chatbot, c.visitor_key, c.visitor_name, c.visitor_email AS email, c.status, c.channel,
         c.last_message_at, c.last_message_preview AS preview, c.escalated, c.unread_count AS unread, c.resolution,
         ${GROUP_SQL} AS "group", c.handoff_state, c.assigned_user_id, u.name AS assigned_to, v.last_seen_at, c.handoff_requested_at,
         COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) ORDER BY t.name)
                     FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
                    WHERE ct.conversation_id = c.id), '[]') AS tags
    FROM conversations c
    JOIN chatbots b ON b.id = c.chatbot_id
    LEFT JOIN users u ON u.id = c.assigned_user_id
    LEFT JOIN visitors v ON v.company_id = c.company_id AND v.visitor_key = c.visitor_key`;

/** One page of the inbox under a filter, most recent activity first. */
export function listInbox(companyId: number, userId: number, filter: InboxFilter): Promise<InboxRow[]> {
  return Conversation.sequelize!.query<InboxRow>(
    `${ROW_SQL} WHERE c.company_id = $1 AND ${filterSql(filter)} ORDER BY c.last_message_at DESC, c.id DESC LIMIT ${LIST_LIMIT}`,
    { bind: [companyId, userId], type: QueryTypes.SELECT },
  );
}

/** One conversation as an inbox row (the active thread's list fields). */
export async function inboxRow(companyId: number, userId: number, conversationId: number): Promise<InboxRow | undefined> {
  const [row] = await Conversation.sequelize!.query<InboxRow>(`${ROW_SQL} WHERE c.company_id = $1 AND c.id = $3`, {
    bind: [companyId, userId, conversationId],
    type: QueryTypes.SELECT,
  });
  return row;
}

/** Counts over the whole inbox, whatever the filter: one pass over the workspace's conversations. */
export async function inboxTotals(companyId: number, userId: number): Promise<InboxTotals> {
  const [row] = await Conversation.sequelize!.query<Record<string, string>>(
    `SELECT count(*) FILTER (WHERE g <> 'resolved') AS "all",
            count(*) FILTER (WHERE g = 'waiting') AS waiting, count(*) FILTER (WHERE g = 'mine') AS mine,
            count(*) FILTER (WHERE g = 'team') AS team, count(*) FILTER (WHERE g = 'ai') AS ai,
            count(*) FILTER (WHERE g = 'resolved') AS resolved,
            count(*) FILTER (WHERE g <> 'resolved' AND unread_count > 0) AS unread
       FROM (SELECT ${GROUP_SQL} AS g, c.unread_count FROM conversations c WHERE c.company_id = $1) grouped`,
    { bind: [companyId, userId], type: QueryTypes.SELECT },
  );
  const n = (key: string) => Number(row?.[key] ?? 0);
  return {
    counts: { all: n('all'), ai: n('ai'), human: n('mine') + n('team'), resolved: n('resolved'), unread: n('unread') },
    groups: { waiting: n('waiting'), mine: n('mine'), team: n('team'), ai: n('ai'), resolved: n('resolved') },
  };
}
