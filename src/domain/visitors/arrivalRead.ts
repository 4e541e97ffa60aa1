import type { Sequelize } from 'sequelize';
import { Batched, batchedPer } from '../../db/batched';
import { jsonRows } from '../../db/jsonRows';
import { plainRows } from '../../db/plainRows';
import type { VisitorOnChatbot } from '../conversations/visitorConversations';
import { FACTS_COLUMNS, FACTS_OF_KEY, factsOf, namedConversation, type BeatFacts, type FactsRow } from './beatFacts';
import { blankVisitor, recordOf, VISITOR_BY_KEY, VISITOR_COLUMNS, type VisitorRecord, type VisitorRow } from './records';

/**
 * A visitor actor woken by a heartbeat (nearly always: a new visitor's first beat) reads its row
 * (`loadVisitor`) and then, in that beat's turn, the facts of its first beat on the chatbot
 * (`beatFacts`): two batched statements one after the other. This is both in one statement, shared
 * with the other visitors arriving at the same moment (src/db/batched.ts): the same two lookups
 * (the row by the unique key, the facts from one scan of `conversations_by_visitor`) as LATERAL
 * joins of the same batch, so one round trip and one statement per batch instead of two
 * (docs/performance.md, "Arrivals, eighth round"). The row is a LEFT join: a visitor never seen
 * gets a blank record, and the facts (an aggregate: one row whatever it finds) are there for every key.
 * Exported for test/integration/visitorPlans.test.ts.
 */
export const ARRIVAL_SQL = `SELECT k.n, ${VISITOR_COLUMNS}, ${FACTS_COLUMNS}
  FROM ROWS FROM (json_to_recordset($1::json) AS ("companyId" int, "chatbotId" int, "visitorKey" text, "conversationId" uuid))
       WITH ORDINALITY AS k(company_id, chatbot_id, visitor_key, public_id, n)
  LEFT JOIN LATERAL ${VISITOR_BY_KEY} v ON true
  CROSS JOIN LATERAL ${FACTS_OF_KEY} f`;

interface ArrivalInput extends VisitorOnChatbot {
  conversationId: string | null;
}

/** The stored visitor (blank when none) and the facts of their beat on the chatbot, read together. */
export interface ArrivalRead {
  record: VisitorRecord;
  facts: BeatFacts;
}

type ArrivalRow = Omit<VisitorRow, 'id'> & { id: string | null } & FactsRow & { n: string };

const reads = batchedPer((sequelize: Sequelize) =>
  new Batched<ArrivalInput, ArrivalRead>(async (inputs) => {
    const rows = await plainRows<ArrivalRow>(sequelize, ARRIVAL_SQL, [jsonRows(inputs)], { prepared: true });
    const byInput = new Map(rows.map((row) => [Number(row.n) - 1, row]));
    return inputs.map(({ companyId, visitorKey }, i) => {
      const row = byInput.get(i)!;
      const record = row.id === null ? blankVisitor(companyId, visitorKey) : recordOf(companyId, visitorKey, row as VisitorRow);
      return { record, facts: factsOf(row) };
    });
  }),
);

/** `loadVisitor` and `beatFacts` for one visitor's heartbeat on a chatbot, as one batched statement. */
export function readArrival(sequelize: Sequelize, owner: VisitorOnChatbot, conversationId: string | undefined): Promise<ArrivalRead> {
  return reads(sequelize).call({ companyId: owner.companyId, chatbotId: owner.chatbotId, visitorKey: owner.visitorKey, conversationId: namedConversation(conversationId) });
}
