import { Agent } from 'node:https';
import type { AppContext } from '../../context';
import { guardedLookup, outboundPolicy, type AddressPolicy } from '../../net/outboundAddress';
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
  /** Which addresses a push endpoint may resolve to (OUTBOUND_ALLOW_PRIVATE). */
  policy: AddressPolicy;
  /**
   * The agent every push-service request goes through: its `lookup` resolves the endpoint's host and
   * refuses it under `policy`, so the socket connects to the address that was checked.
   */
  agent: Agent;
  requestTimeoutMs: number;
}

export interface PushRuntimeOptions {
  throttle?: PushThrottle;
  throttleWindowMs?: number;
  now?: () => Date;
  requestTimeoutMs?: number;
  /** Tests: the certificate to trust instead of the system CAs (a local push-service stand-in's). */
  ca?: string | Buffer;
}

export function pushRuntime(ctx: AppContext, options: PushRuntimeOptions = {}): PushRuntime {
  const policy = outboundPolicy(ctx.config.outbound.allowPrivate);
  return {
    // The throttle must be shared by every process that fans out: Redis in cluster mode.
    throttle: options.throttle ?? (ctx.redis ? redisThrottle(ctx.redis, ctx.config.redisPrefix) : memoryThrottle()),
    throttleWindowMs: options.throttleWindowMs ?? VISITOR_MESSAGE_WINDOW_MS,
    now: options.now ?? (() => new Date()),
    policy,
    // Agent options reach every socket it opens, `lookup` included; one per process since the policy is.
    agent: new Agent({ lookup: guardedLookup(policy), ...(options.ca !== undefined && { ca: options.ca }) }),
    requestTimeoutMs: options.requestTimeoutMs ?? PUSH_REQUEST_TIMEOUT_MS,
  };
}
