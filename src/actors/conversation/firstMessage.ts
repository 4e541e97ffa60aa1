import type { InferAttributes } from 'sequelize';
import { languageWith } from '../../domain/conversations/language';
import { contactIn } from '../../domain/leads/capturedContact';
import { Conversation, Message } from '../../models';
import { plainRows } from '../../db/plainRows';
import type { ConversationActor } from './actor';
import type { NewLine } from './lineStatement';
import type { VisitorMessageInput } from './protocol';
import { lineColumns } from './record';
import { visitorColumns } from './visitorColumns';

// A new conversation's first message on the hot path: one read beside the chatbot's, then one fenced statement.

/** What a new conversation's first message reads before it is stored, in one round trip. */
export interface FirstRead {
  /** The visitor's latest conversation with this chatbot is blocked (`latestConversationBlocked`). */
  blocked: boolean;
  /** The new conversation's id and its first line's id, taken from the sequences, so one statement stores them with their events. */
  conversationId: number;
  lineId: number;
  /** When asked for (the AI may answer): an id for the answer too, above `lineId` (`storeAnswer`). */
  answerId: number | null;
}

/** One text, prepared once per connection (`plainRows`). The workspace is the chatbot's, as `latestConversationBlocked` is given it. */
const FIRST_READ = `SELECT coalesce((SELECT blocked FROM conversations
                     WHERE chatbot_id = $1::int AND visitor_key = $2::text AND company_id = (SELECT company_id FROM chatbots WHERE id = $1::int)
                     ORDER BY created_at DESC, id DESC LIMIT 1), false) AS blocked,
            nextval(pg_get_serial_sequence('conversations', 'id')) AS conversation_id,
            (SELECT array_agg(v ORDER BY v) FROM (SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS v
               FROM generate_series(1, CASE WHEN $3::boolean THEN 2 ELSE 1 END)) ids) AS ids`;

/**
 * The reads of a new conversation's first message in one query: whether the visitor is blocked on
 * this chatbot (by `conversations_by_visitor`, as `refuseBlocked` reads it), and the ids its one
 * statement stores (the conversation's, the line's, and with `withAnswer` the answer's). Ids taken and
 * not used (a refused message, a lost race) leave gaps in the sequences, as rolled-back inserts do.
 */
export async function readForFirst(chatbotId: number, visitorKey: string, withAnswer: boolean): Promise<FirstRead> {
  const [row] = await plainRows<{ blocked: boolean; conversation_id: string | number; ids: Array<string | number> }>(
    Message.sequelize!,
    FIRST_READ,
    [chatbotId, visitorKey, withAnswer],
    { prepared: true },
  );
  return {
    blocked: row!.blocked,
    conversationId: Number(row!.conversation_id),
    lineId: Number(row!.ids[0]),
    answerId: row!.ids[1] === undefined ? null : Number(row!.ids[1]),
  };
}

/**
 * Whether a first message is stored by one statement (`firstLineStarted`): unless it carries contact
 * details, which may save a lead (`lead.created`): that message takes the general write.
 */
export function firstStoredAlone(input: VisitorMessageInput): boolean {
  const contact = contactIn(input.text);
  return !contact.email && !contact.phone;
}

/**
 * A new conversation and its first line, stored by one fenced statement (`storeFirstLine`), with the
 * rows, columns, realtime and outbox events the general write (`store` creating the conversation)
 * leaves. The line (and the conversation, not the record's until the write committed) are known
 * before the write answers, so an answer can start beside it; the events go out on `announce`.
 */
export function firstLineStarted(
  actor: ConversationActor,
  input: VisitorMessageInput,
  read: FirstRead,
): { question: Message; conversation: Conversation; writing: Promise<{ message: Message; announce: () => void }> } {
  const createdAt = new Date();
  // As the general write builds it: the model's defaults, then what the message sets.
  const built = Conversation.build({ publicId: actor.id, companyId: actor.companyId, chatbotId: input.chatbotId, visitorKey: input.visitorKey, channel: input.channel });
  const line: NewLine = { id: read.lineId, companyId: built.companyId, conversationId: read.conversationId, role: 'visitor', content: input.text, clientId: input.clientId ?? null, createdAt };
  const question = Message.build(line, { isNewRecord: false, raw: true });
  // A new conversation has no earlier lines: the message alone is the language sample.
  const language = languageWith(built, input.text, []);
  const changes = { ...visitorColumns(built, input), ...(language && { detectedLanguage: language }) };
  const row = {
    ...unsetColumns(),
    ...built.get(),
    id: read.conversationId,
    createdAt,
    updatedAt: createdAt,
    ...changes,
    ...lineColumns({ ...built.get(), ...changes }, question, 'add'),
    // `conversation.created` and `message.created`.
    seq: Number(built.seq) + 2,
    version: built.version + 1,
  } as InferAttributes<Conversation>;
  const conversation = Conversation.build(row, { isNewRecord: false, raw: true });
  const created = actor.createdData(conversation);
  return { question, conversation, writing: actor.record.storeFirstLine(conversation, line, question, created.webhook, created.realtime) };
}

/**
 * Every column the model has, null: what the row in memory holds for a column nothing set. The
 * insert writes that null where the database has a default, so every column with a default in the
 * schema needs the same default in the model (they are all NOT NULL: a missing one fails the insert
 * loudly, and test/integration/firstMessageStatement.test.ts compares every column with the general write's).
 */
function unsetColumns(): Record<string, null> {
  return Object.fromEntries(Object.keys(Conversation.getAttributes()).map((key) => [key, null]));
}
