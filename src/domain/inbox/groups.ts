/**
 * Inbox groups and filters (docs/api.md "Inbox"), written once as SQL so the list, the
 * filter and the counts can never disagree. `$2` is the calling agent's user id.
 */
export const INBOX_GROUPS = ['waiting', 'mine', 'team', 'ai', 'resolved'] as const;
export type InboxGroup = (typeof INBOX_GROUPS)[number];

export const INBOX_FILTERS = ['all', 'waiting', 'mine', 'team', 'ai', 'human', 'resolved'] as const;
export type InboxFilter = (typeof INBOX_FILTERS)[number];

/** `c` is the conversations row. A waiting visitor nobody has picked up outranks the AI's own chats. */
export const GROUP_SQL = `CASE
  WHEN c.status = 'closed' THEN 'resolved'
  WHEN c.status = 'agent' AND c.assigned_user_id = $2 THEN 'mine'
  WHEN (c.handoff_state = 'handoff_pending' OR c.escalated) AND c.assigned_user_id IS NULL THEN 'waiting'
  WHEN c.status = 'agent' THEN 'team'
  ELSE 'ai'
END`;

/**
 * Beside the CASE (which stays the one definition), each filter carries a plain predicate that the
 * group implies, so that an index can find its rows: `conversations_open_recent`, `_held` and
 * `_waiting` (migrations 0003 and 0009) give a page as the first rows of an index, where the CASE
 * alone would be tested on every conversation of the workspace.
 */
const IMPLIED: Record<InboxFilter, string> = {
  all: `c.status <> 'closed'`,
  waiting: `c.status <> 'closed' AND (c.handoff_state = 'handoff_pending' OR c.escalated) AND c.assigned_user_id IS NULL`,
  mine: `c.status = 'agent' AND c.assigned_user_id = $2`,
  team: `c.status <> 'closed'`,
  ai: `c.status <> 'closed'`,
  human: `c.status <> 'closed'`,
  resolved: `c.status = 'closed'`,
};

export function filterSql(filter: InboxFilter): string {
  switch (filter) {
    case 'all':
      return IMPLIED.all;
    case 'human':
      return `${IMPLIED.human} AND (${GROUP_SQL}) IN ('mine', 'team')`;
    default:
      return `${IMPLIED[filter]} AND (${GROUP_SQL}) = '${filter}'`;
  }
}
