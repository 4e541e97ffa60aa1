import type { Sequelize } from 'sequelize';
import { Batched, batchedPer } from '../../db/batched';
import { jsonRows } from '../../db/jsonRows';
import { plainRows } from '../../db/plainRows';
import { isConversationId } from '../conversations/publicId';
import type { VisitorOnChatbot } from '../conversations/visitorConversations';

/** What a visitor actor reads of the visitor's conversations on one chatbot before it has any of it in memory. */
export interface BeatFacts {
  /** Their latest conversation there is blocked (`latestConversationBlocked`). */
  blocked: boolean;
  /** Their open conversation there (`latestOpenConversation`). */
  latestOpen: string | null;
  /** Agent or system messages wait for them there (what `takeHeldMessages` would take). */
  held: boolean;
  /** The conversation the widget named is theirs there (`ownsConversation`); false when none was named. */
  owns: boolean;
}

interface FactsInput extends VisitorOnChatbot {
  conversationId: string | null;
}

/**
 * The four answers for the batch's `k.company_id`, `k.chatbot_id`, `k.visitor_key` and `k.public_id`
 * (the named conversation), for a LATERAL join: an aggregate, so one row per key even without a
 * conversation. Shared with the activation's read (src/domain/visitors/arrivalRead.ts).
 */
export const FACTS_OF_KEY = `(
    SELECT (array_agg(c.blocked ORDER BY c.created_at DESC, c.id DESC))[1] AS blocked,
           (array_agg(c.public_id ORDER BY c.created_at DESC, c.id DESC) FILTER (WHERE c.status <> 'closed'))[1] AS latest_open,
           bool_or(EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.delivered_at IS NULL AND m.role IN ('agent', 'system'))) AS held,
           bool_or(c.public_id = k.public_id) AS owns
      FROM conversations c
     WHERE c.chatbot_id = k.chatbot_id AND c.visitor_key = k.visitor_key AND c.company_id = k.company_id)`;

/** The columns `factsOf` reads, of the lateral `f`. */
export const FACTS_COLUMNS = 'f.blocked, f.latest_open, COALESCE(f.held, false) AS held, COALESCE(f.owns, false) AS owns';

export interface FactsRow {
  blocked: boolean | null;
  latest_open: string | null;
  held: boolean;
  owns: boolean;
}

export const factsOf = (row: FactsRow): BeatFacts => ({ blocked: row.blocked ?? false, latestOpen: row.latest_open, held: row.held, owns: row.owns });

/** The named conversation as the statements take it: null unless it is a conversation id. */
export const namedConversation = (conversationId: string | undefined): string | null =>
  conversationId !== undefined && isConversationId(conversationId) ? conversationId : null;

/**
 * One lateral scan of the visitor's conversations on the chatbot (`conversations_by_visitor`) per
 * input, the four answers aggregated from it: the newest conversation's block, the newest open one,
 * whether any holds undelivered agent or system messages (`messages_undelivered`), whether the named
 * one is among them. Four sub-selects said the same, but Postgres planned each against every index
 * of `conversations` on every batch, which cost more than running them (docs/performance.md,
 * "Arrivals, fourth round"); prepared, the text is parsed once per connection. The inputs go as one
 * JSON parameter (src/db/jsonRows.ts), the callers' own objects.
 */
const FACTS_SQL = `SELECT k.n, ${FACTS_COLUMNS}
  FROM ROWS FROM (json_to_recordset($1::json) AS ("companyId" int, "chatbotId" int, "visitorKey" text, "conversationId" uuid))
       WITH ORDINALITY AS k(company_id, chatbot_id, visitor_key, public_id, n)
  CROSS JOIN LATERAL ${FACTS_OF_KEY} f`;

const facts = batchedPer((sequelize: Sequelize) =>
  new Batched<FactsInput, BeatFacts>(async (inputs) => {
    const rows = await plainRows<FactsRow & { n: string }>(
      sequelize,
      FACTS_SQL,
      [jsonRows(inputs)],
      { prepared: true },
    );
    const byInput = new Map(rows.map((row) => [Number(row.n) - 1, row]));
    return inputs.map((_, i) => factsOf(byInput.get(i)!));
  }),
);

/**
 * A visitor's first heartbeat on a chatbot (after activation, or after `held`/`blockChanged` cleared
 * what the actor knew) needs four answers about their conversations there; they come in one
 * statement, shared with the other visitors arriving at the same moment (src/db/batched.ts),
 * instead of four statements per visitor.
 */
export function beatFacts(sequelize: Sequelize, owner: VisitorOnChatbot, conversationId: string | undefined): Promise<BeatFacts> {
  return facts(sequelize).call({ companyId: owner.companyId, chatbotId: owner.chatbotId, visitorKey: owner.visitorKey, conversationId: namedConversation(conversationId) });
}
