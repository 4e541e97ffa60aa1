import { Op } from 'sequelize';
import { planOf } from '../../../config/plans';
import { AppError } from '../../errors';
import { UsageRecord, type Company } from '../../models';

export interface Allowance {
  /** AI calls this calendar month (UTC); each ledger row is one. */
  used: number;
  /** The plan's monthly_message_limit; null is unlimited. */
  limit: number | null;
  /** floor(100 * used / limit), null when unlimited. */
  percent: number | null;
  /** When the count starts again: the first instant of next month, UTC. */
  renewsAt: Date;
}

export function monthStart(now: Date, offsetMonths = 0): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offsetMonths, 1));
}

/** The workspace's monthly message allowance and how much of it is used. */
export async function allowanceOf(company: Pick<Company, 'id' | 'plan'>, now = new Date()): Promise<Allowance> {
  const limit = planOf(company).monthlyMessageLimit;
  const used = await UsageRecord.count({ where: { companyId: company.id, createdAt: { [Op.gte]: monthStart(now) } } });
  return { used, limit, percent: limit === null ? null : Math.floor((100 * used) / limit), renewsAt: monthStart(now, 1) };
}

/**
 * Refuses an AI call once the month's allowance is spent: 429 with code `limit_reached` (the widget's
 * SSE error code) and `Retry-After` until the month turns. Calls already in flight may each land,
 * so a burst can pass the limit by at most the number of concurrent calls. An unlimited plan has
 * nothing to count, so it costs no query on the reply's hot path.
 */
export async function assertAllowance(company: Pick<Company, 'id' | 'plan'>, now = new Date()): Promise<void> {
  const limit = planOf(company).monthlyMessageLimit;
  if (limit === null) return;
  const { used, renewsAt } = await allowanceOf(company, now);
  if (used < limit) return;
  const seconds = Math.max(1, Math.ceil((renewsAt.getTime() - now.getTime()) / 1000));
  throw new AppError(
    429,
    'limit_reached',
    `The workspace has used its monthly allowance of ${limit} AI messages on the ${planOf(company).label} plan; it renews on ${renewsAt.toISOString().slice(0, 10)}.`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}
