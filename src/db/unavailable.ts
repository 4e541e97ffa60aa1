import type { Logger } from 'pino';
import { ConnectionError, DatabaseError } from 'sequelize';
import { throttledWarn } from '../logger';

/**
 * SQLSTATEs that say the server cannot serve anyone right now, whatever the query: class 08
 * (connection exception), 57P01-57P03 (admin or crash shutdown, "cannot connect now" while
 * starting or stopping) and 53300 (too many connections).
 */
const UNAVAILABLE_STATE = /^(?:08...|57P0[123]|53300)$/;
/** Socket errors of the driver's connection (only looked at inside a database error). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** What pg says when the server went away under a client, or the client is already broken by it. */
const LOST_CONNECTION = /Connection terminated|not queryable|Connection ended/i;

/**
 * True when an error means PostgreSQL could not be reached (down, restarting, refusing connections,
 * the pool could not get a connection), as opposed to a query that failed on its own merits. Such a
 * request did not complete and can be tried again once the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionError) return true; // refused, timed out, acquire timeout, access denied...
  if (error instanceof DatabaseError) return isLostConnection(error.parent, true);
  return isLostConnection(error, false);
}

function isLostConnection(error: unknown, insideDatabaseError: boolean): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_STATE.test(code) && 'severity' in error) return true; // a pg server error
  if (!insideDatabaseError) return false;
  return (typeof code === 'string' && SOCKET_CODES.has(code)) || LOST_CONNECTION.test(error.message);
}

const outageWarning = throttledWarn();

/**
 * Logs that the database is unavailable: a warning with the cause and no stack, at most one every
 * few seconds for the whole process, since during an outage every request and every turn meets it.
 */
export function warnDatabaseUnavailable(logger: Logger, error: unknown, where: string): void {
  const cause = error instanceof DatabaseError || error instanceof ConnectionError ? (error.parent ?? error) : error;
  const code = (cause as { code?: unknown } | null | undefined)?.code;
  outageWarning(logger, { where, cause: cause instanceof Error ? cause.message : String(cause), ...(typeof code === 'string' && { code }) }, 'database unavailable');
}
