import { FLOOD_LIMIT, type RecentLine } from '../../domain/conversations/abuse';
import type { ChatMessage } from '../../ai/providers/types';
import { asTurn, HISTORY_ROLES, HISTORY_TURNS } from '../../domain/conversations/history';
import { EARLIER_MESSAGES, LANGUAGE_SAMPLE_CHARS } from '../../domain/conversations/language';
import { Message } from '../../models';
import { plainRows } from '../../db/plainRows';

/** What a visitor's message to an existing conversation reads before it is stored, in one round trip. */
export interface TurnRead {
  /** The newest visitor lines, newest first: the flood rule and the language sample. */
  recent: RecentLine[];
  /** The visitor line stored earlier with this client id (a retry), if any. */
  retriedId: number | null;
  /** The new line's id, taken from the messages' sequence (`takeId`), so one statement can store it with its event. */
  nextId: number | null;
  /** The turns before the new line, oldest first, as `historyBefore` reads them (when asked for: the AI may answer). */
  history: ChatMessage[] | undefined;
  /** With the history, an id for the AI's answer too, above `nextId`: its one statement stores it (`storeAnswer`). */
  answerId: number | null;
}

/** The turn's one read: one text, prepared once per connection (`plainRows`). */
const TURN_READ = `SELECT coalesce((SELECT json_agg(json_build_object('at', extract(epoch FROM r.created_at) * 1000, 'tail', r.tail) ORDER BY r.id DESC)
              FROM (SELECT id, created_at, right(content, ${LANGUAGE_SAMPLE_CHARS}) AS tail FROM messages
                     WHERE conversation_id = $1 AND role = 'visitor' ORDER BY id DESC LIMIT ${Math.max(FLOOD_LIMIT, EARLIER_MESSAGES)}) r), '[]') AS recent,
            CASE WHEN $2::text IS NULL THEN NULL ELSE (SELECT id FROM messages WHERE conversation_id = $1 AND client_id = $2::text AND role = 'visitor' LIMIT 1) END AS retried_id,
            CASE WHEN $3::boolean THEN nextval(pg_get_serial_sequence('messages', 'id')) END AS first_id,
            CASE WHEN $3::boolean AND $4::boolean THEN nextval(pg_get_serial_sequence('messages', 'id')) END AS second_id,
            CASE WHEN $4::boolean THEN coalesce((SELECT json_agg(json_build_object('role', h.role, 'content', h.content) ORDER BY h.id)
              FROM (SELECT id, role, content FROM messages
                     WHERE conversation_id = $1 AND role IN (${HISTORY_ROLES.map((role) => `'${role}'`).join(', ')}) ORDER BY id DESC LIMIT ${HISTORY_TURNS}) h), '[]') END AS history`;

/**
 * The reads of a visitor's turn in one query: the newest visitor lines (enough for the flood
 * rule and the language sample, by `messages_conversation`, a cost that does not grow with the transcript), the retry by client id (by the `client_id` unique index), and, when
 * the line will be stored by one statement, its id; and, when the AI may answer, the turns before
 * the new line for its prompt (what `historyBefore` would read after the line is stored: nothing
 * else writes to the conversation during its turn) and the answer's id. An id taken and not used (a retry, a refused
 * message) leaves a gap in the sequence, as a rolled-back insert does; a line's id is still taken
 * inside its conversation's turn, so lines keep their order.
 */
export async function readForTurn(conversationId: number, clientId: string | undefined, takeId: boolean, withHistory = false): Promise<TurnRead> {
  const [row] = await plainRows<{
    recent: Array<{ at: number; tail: string }>;
    retried_id: string | null;
    first_id: string | null;
    second_id: string | null;
    history: Array<{ role: string; content: string }> | null;
  }>(
    Message.sequelize!,
    TURN_READ,
    [conversationId, clientId ?? null, takeId, withHistory],
    { prepared: true },
  );
  // Two scalar ids rather than an array (whose text the driver parses element by element); the lower is the line's, so lines keep their order.
  const ids = [row!.first_id, row!.second_id].filter((id) => id !== null).map(Number).sort((a, b) => a - b);
  return {
    recent: row!.recent.map((line) => ({ createdAt: new Date(Number(line.at)), tail: line.tail })),
    retriedId: row!.retried_id === null ? null : Number(row!.retried_id),
    nextId: ids[0] ?? null,
    history: row!.history?.map(asTurn),
    answerId: ids[1] ?? null,
  };
}

/** A new line's id from the messages' sequence, for a statement that stores it with its event (an answer whose turn took none). */
export async function takeMessageId(): Promise<number> {
  const [row] = await plainRows<{ id: string }>(Message.sequelize!, `SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS id`, [], { prepared: true });
  return Number(row!.id);
}
