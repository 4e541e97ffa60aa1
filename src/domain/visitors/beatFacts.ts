import { QueryTypes, type Sequelize } from 'sequelize';
import { Batched, batchedPer } from '../../db/batched';
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

const facts = batchedPer((sequelize: Sequelize) =>
  new Batched<FactsInput, BeatFacts>(async (inputs) => {
    const rows = await sequelize.query<{ n: string; blocked: boolean | null; latest_open: string | null; held: boolean; owns: boolean }>(
      `SELECT k.n,
              (SELECT c.blocked FROM conversations c
                WHERE c.chatbot_id = k.chatbot_id AND c.visitor_key = k.visitor_key AND c.company_id = k.company_id
                ORDER BY c.created_at DESC, c.id DESC LIMIT 1) AS blocked,
              (SELECT c.public_id FROM conversations c
                WHERE c.chatbot_id = k.chatbot_id AND c.visitor_key = k.visitor_key AND c.company_id = k.company_id AND c.status <> 'closed'
                ORDER BY c.created_at DESC, c.id DESC LIMIT 1) AS latest_open,
              EXISTS (SELECT 1 FROM conversations c JOIN messages m ON m.conversation_id = c.id
                       WHERE c.chatbot_id = k.chatbot_id AND c.visitor_key = k.visitor_key AND c.company_id = k.company_id
                         AND m.delivered_at IS NULL AND m.role IN ('agent', 'system')) AS held,
              (k.public_id IS NOT NULL AND EXISTS (SELECT 1 FROM conversations c
                WHERE c.public_id = k.public_id AND c.chatbot_id = k.chatbot_id AND c.visitor_key = k.visitor_key AND c.company_id = k.company_id)) AS owns
         FROM unnest($1::int[], $2::int[], $3::text[], $4::uuid[]) WITH ORDINALITY AS k(company_id, chatbot_id, visitor_key, public_id, n)`,
      {
        bind: [inputs.map((i) => i.companyId), inputs.map((i) => i.chatbotId), inputs.map((i) => i.visitorKey), inputs.map((i) => i.conversationId)],
        type: QueryTypes.SELECT,
      },
    );
    const byInput = new Map(rows.map((row) => [Number(row.n) - 1, row]));
    return inputs.map((_, i) => {
      const row = byInput.get(i)!;
      return { blocked: row.blocked ?? false, latestOpen: row.latest_open, held: row.held, owns: row.owns };
    });
  }),
);

/**
 * A visitor's first heartbeat on a chatbot (after activation, or after `held`/`blockChanged` cleared
 * what the actor knew) needs four answers about their conversations there; they come in one
 * statement, shared with the other visitors arriving at the same moment (src/db/batched.ts),
 * instead of four statements per visitor. Each uses `conversations_by_visitor` as the single-purpose
 * reads do; `messages_undelivered` for the held ones.
 */
export function beatFacts(sequelize: Sequelize, owner: VisitorOnChatbot, conversationId: string | undefined): Promise<BeatFacts> {
  const named = conversationId !== undefined && isConversationId(conversationId) ? conversationId : null;
  return facts(sequelize).call({ companyId: owner.companyId, chatbotId: owner.chatbotId, visitorKey: owner.visitorKey, conversationId: named });
}
