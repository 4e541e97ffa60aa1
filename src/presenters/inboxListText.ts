import { LIST_LIMIT } from '../domain/inbox/listInbox';
import type { InboxListText } from '../domain/inbox/listText';
import { isOnline } from '../domain/visitors/presence';
import { relativeTime } from './displayTime';
import { secondsWaiting, type InboxClock } from './inbox';

/**
 * The inbox list answer (no open thread) as `res.json` would write `presentInbox`'s, from items
 * Postgres wrote as JSON text (src/domain/inbox/listText.ts): only the three values of the request's
 * clock are filled in here, by the presenter's own rules. `test/integration/agentInboxLeanList.test.ts`
 * holds the bytes to the generic stack's.
 */
export function inboxListJson(list: InboxListText, clock: InboxClock): string {
  const now = clock.now.getTime();
  // A relative time holds no character JSON would escape.
  const items = list.items.map(
    (item) =>
      `${item.head}"${relativeTime(item.lastMs, now)}"${item.tail}${isOnline(item.seenMs, now, clock.pollSeconds)}` +
      `,"waiting_seconds":${item.waitingMs === null ? 'null' : secondsWaiting(item.waitingMs, now)}}`,
  );
  return (
    `{"conversations":[${items.join(',')}],"counts":${JSON.stringify(list.counts)},"groups":${JSON.stringify(list.groups)},` +
    `"listed":${list.items.length},"list_limit":${LIST_LIMIT},"next_cursor":${JSON.stringify(list.nextCursor)},"active":null}`
  );
}
