import { QueryTypes } from 'sequelize';
import { notFound } from '../../errors';
import { Conversation } from '../../models';
import { isConversationId } from '../conversations/publicId';

export interface RevenueChange {
  /** Whole currency units (decimals allowed, kept to the hundredth); null clears; undefined leaves the amount. */
  amount?: number | null;
  /** Upper-case ISO 4217 code; undefined keeps the conversation's currency (USD when it has none). */
  currency?: string;
}

export interface Revenue {
  cents: number | null;
  currency: string;
}

export const DEFAULT_CURRENCY = 'USD';

/**
 * Records what a conversation earned, in one statement scoped to the workspace. The conversation actor
 * never writes these columns, so writing them beside it cannot lose either side's change.
 * `cents` are hundredths of the currency unit whatever the currency, so the value round-trips exactly.
 */
export async function setRevenue(companyId: number, publicId: string, change: RevenueChange): Promise<Revenue> {
  if (!isConversationId(publicId)) throw notFound('Conversation');
  const setsAmount = change.amount !== undefined;
  const cents = change.amount === null || change.amount === undefined ? null : Math.round(change.amount * 100);
  const [row] = await Conversation.sequelize!.query<{ revenue_cents: string | null; revenue_currency: string }>(
    `UPDATE conversations
     SET revenue_cents = CASE WHEN :setsAmount THEN CAST(:cents AS bigint) ELSE revenue_cents END,
         revenue_currency = COALESCE(CAST(:currency AS char(3)), revenue_currency, :fallback),
         updated_at = now()
     WHERE company_id = :companyId AND public_id = CAST(:publicId AS uuid)
     RETURNING revenue_cents, revenue_currency`,
    {
      type: QueryTypes.SELECT,
      replacements: { setsAmount, cents, currency: change.currency ?? null, fallback: DEFAULT_CURRENCY, companyId, publicId },
    },
  );
  if (!row) throw notFound('Conversation');
  return { cents: row.revenue_cents === null ? null : Number(row.revenue_cents), currency: row.revenue_currency };
}
