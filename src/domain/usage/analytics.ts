import { QueryTypes } from 'sequelize';
import { UsageRecord } from '../../models';
import { monthStart } from './allowance';

export interface MonthlyAnalytics {
  since: Date;
  conversations: number;
  /** Conversations closed this month that the AI resolved alone (idle close or a reset after its answer). */
  resolvedByAi: number;
  aiReplies: number;
  humanReplies: number;
  visitorMessages: number;
  /** Visitors' thumbs up and down on this month's AI answers. */
  ratingsUp: number;
  ratingsDown: number;
  /** AI calls in the ledger this month: the allowance's count. */
  aiCalls: number;
  tokens: number;
  costMicroCents: number;
}

/**
 * The workspace's calendar month (UTC) so far: conversations started, messages by author, and the
 * ledger's AI calls, tokens and cost. Each figure is a sum over rows, never a counter that can drift.
 */
export async function monthlyAnalytics(companyId: number, now = new Date()): Promise<MonthlyAnalytics> {
  const since = monthStart(now);
  const [row] = await UsageRecord.sequelize!.query<Record<string, string | null>>(
    `SELECT
       (SELECT count(*) FROM conversations WHERE company_id = :companyId AND created_at >= :since) AS conversations,
       (SELECT count(*) FROM conversations WHERE company_id = :companyId AND resolved_by_ai AND resolved_at >= :since) AS resolved_by_ai,
       m.ai_replies, m.human_replies, m.visitor_messages, m.ratings_up, m.ratings_down,
       u.calls, u.tokens, u.cost
     FROM (SELECT count(*) FILTER (WHERE role = 'assistant') AS ai_replies,
                  count(*) FILTER (WHERE role = 'agent') AS human_replies,
                  count(*) FILTER (WHERE role = 'visitor') AS visitor_messages,
                  count(*) FILTER (WHERE rating = 'up') AS ratings_up,
                  count(*) FILTER (WHERE rating = 'down') AS ratings_down
             FROM messages WHERE company_id = :companyId AND created_at >= :since) m,
          (SELECT count(*) AS calls, coalesce(sum(tokens_in + tokens_out), 0) AS tokens, coalesce(sum(cost_micro_cents), 0) AS cost
             FROM usage_records WHERE company_id = :companyId AND created_at >= :since) u`,
    { replacements: { companyId, since }, type: QueryTypes.SELECT },
  );
  const count = (field: string) => Number(row?.[field] ?? 0);
  return {
    since,
    conversations: count('conversations'),
    resolvedByAi: count('resolved_by_ai'),
    aiReplies: count('ai_replies'),
    humanReplies: count('human_replies'),
    visitorMessages: count('visitor_messages'),
    ratingsUp: count('ratings_up'),
    ratingsDown: count('ratings_down'),
    aiCalls: count('calls'),
    tokens: count('tokens'),
    costMicroCents: count('cost'),
  };
}
