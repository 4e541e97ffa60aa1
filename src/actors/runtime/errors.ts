import { isDatabaseUnavailable } from '../../db/unavailable';
import { AppError, databaseUnavailable } from '../../errors';

const RETRY_AFTER = { 'Retry-After': '2' };

/** No node served the actor before the ask's deadline (shards moving, owner starting, Redis away). */
export const actorUnavailable = (what: string) =>
  new AppError(503, 'actor_unavailable', `${what} is moving between servers. Try again in a moment.`, { headers: RETRY_AFTER });

/**
 * The owner died or lost its shard after it received the message: the turn may or may not have run.
 * Retrying with the same idempotency key is safe for actors that record their effects durably.
 */
export const ownerLost = (what: string) =>
  new AppError(503, 'owner_lost', `The server handling ${what} went away. Try again.`, { headers: RETRY_AFTER });

/** The turn ran past its deadline; its abort signal fired and the caller stops waiting. */
export const turnTimedOut = (what: string) =>
  new AppError(503, 'turn_timeout', `${what} did not answer in time. Try again.`, { headers: RETRY_AFTER });

/**
 * The answer sent back over the wire for a failed turn. Only AppErrors keep their text; a turn that
 * could not reach the database answers as a request would (503 `database_unavailable`), not 500.
 */
export interface WireError {
  status: number;
  code: string;
  message: string;
  errors?: Record<string, string[]>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function toWireError(error: unknown): WireError {
  if (isDatabaseUnavailable(error)) return toWireError(databaseUnavailable());
  if (error instanceof AppError) return { status: error.status, code: error.code, message: error.message, ...error.details };
  return { status: 500, code: 'actor_error', message: 'The action failed on the server.' };
}

export function fromWireError(wire: WireError): AppError {
  const { status, code, message, ...details } = wire;
  return new AppError(status, code, message, details);
}
