import type { Conversation } from '../../models';

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

type Stored = Pick<Conversation, 'revenueCents' | 'revenueCurrency'>;

/** What a conversation earned as stored (Postgres hands a bigint back as a string). */
export const revenueOf = (conversation: Stored): Revenue => ({
  cents: conversation.revenueCents === null ? null : Number(conversation.revenueCents),
  currency: conversation.revenueCurrency ?? DEFAULT_CURRENCY,
});

/**
 * The revenue columns after a change, or undefined when it changes nothing. `cents` are hundredths of
 * the currency unit whatever the currency, so the value round-trips exactly.
 */
export function revenueChanges(conversation: Stored, change: RevenueChange): { revenueCents: number | null; revenueCurrency: string } | undefined {
  const current = revenueOf(conversation);
  const cents = change.amount === undefined ? current.cents : change.amount === null ? null : Math.round(change.amount * 100);
  const currency = change.currency ?? current.currency;
  if (cents === current.cents && currency === conversation.revenueCurrency) return undefined;
  return { revenueCents: cents, revenueCurrency: currency };
}
