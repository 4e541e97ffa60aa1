import type { Agent } from 'node:https';
import type { AppContext } from '../../context';
import { memoryThrottle, redisThrottle, type PushThrottle } from './throttle';

/** A chatty visitor: at most one `visitor_message` push per conversation per agent in this window. */
export const VISITOR_MESSAGE_WINDOW_MS = 60_000;

/** How long one request to a push service may stay silent before it counts as a network failure. */
const PUSH_REQUEST_TIMEOUT_MS = 10_000;

/** What push jobs need beside the context; built once per process. */
export interface PushRuntime {
  throttle: PushThrottle;
  throttleWindowMs: number;
  /** The clock preferences (quiet hours, DND) and TTLs are read against. */
  now: () => Date;
  /** TLS settings for push-service requests; the default agent (system CAs) when absent. */
  agent?: Agent;
  requestTimeoutMs: number;
}

/** Overrides for tests: another clock, a shorter window, an agent that trusts a local stand-in's certificate. */
export type PushRuntimeOptions = Partial<PushRuntime>;

export function pushRuntime(ctx: AppContext, options: PushRuntimeOptions = {}): PushRuntime {
  return {
    // The throttle must be shared by every process that fans out: Redis in cluster mode.
    throttle: options.throttle ?? (ctx.redis ? redisThrottle(ctx.redis, ctx.config.redisPrefix) : memoryThrottle()),
    throttleWindowMs: options.throttleWindowMs ?? VISITOR_MESSAGE_WINDOW_MS,
    now: options.now ?? (() => new Date()),
    agent: options.agent,
    requestTimeoutMs: options.requestTimeoutMs ?? PUSH_REQUEST_TIMEOUT_MS,
  };
}
