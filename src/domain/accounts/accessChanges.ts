import type { Transaction } from 'sequelize';
import { z } from 'zod';
import { AccessToken } from '../../models';

/**
 * Realtime connections are authenticated once, when they open; these announcements tell every web
 * process that what let one in may have ended (a token revoked, a user or workspace suspended), so it
 * checks its sockets again at once (src/realtime/sessionGuard.ts). They travel as PostgreSQL
 * notifications: sent on commit of the change they describe, to every process on the database, the
 * CLI's included, with or without Redis.
 */
export const ACCESS_CHANNEL = 'parley_access';

export type AccessChange = { user: number } | { company: number };

const accessChange = z.union([z.object({ user: z.number().int() }), z.object({ company: z.number().int() })]);

export async function announceAccessChange(change: AccessChange, transaction?: Transaction): Promise<void> {
  await AccessToken.sequelize!.query('SELECT pg_notify($1, $2)', { bind: [ACCESS_CHANNEL, JSON.stringify(change)], transaction });
}

/** Undefined for a payload this version does not know (a newer process on the same database may send more). */
export function parseAccessChange(payload: string | undefined): AccessChange | undefined {
  try {
    const parsed = accessChange.safeParse(JSON.parse(payload ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
