import type { Transaction } from 'sequelize';
import type { ProviderSlug } from '../../../config/providers';
import { UsageRecord, type UsageKind } from '../../models';
import { costMicroCents } from './pricing';

export interface AiCall {
  companyId: number;
  kind: UsageKind;
  provider: ProviderSlug;
  model: string;
  tokensIn: number;
  tokensOut: number;
  chatbotId?: number | null;
  conversationId?: number | null;
  userId?: number | null;
}

/** An AI call's row in the ledger, priced: what `recordUsage` stores, for a statement that stores it itself. */
export type UsageRow = AiCall & { costMicroCents: number; createdAt: Date };

export const usageRow = (call: AiCall, createdAt = new Date()): UsageRow => ({ ...call, costMicroCents: costMicroCents(call.provider, call.model, call.tokensIn, call.tokensOut), createdAt });

/**
 * Appends one AI call to the usage ledger, priced in micro-cents. Callers that persist the call's
 * result (an assistant message) pass their transaction, so the reply and its cost land together.
 */
export function recordUsage(call: AiCall, transaction?: Transaction): Promise<UsageRecord> {
  return UsageRecord.create(
    { ...call, costMicroCents: costMicroCents(call.provider, call.model, call.tokensIn, call.tokensOut) },
    { transaction },
  );
}
