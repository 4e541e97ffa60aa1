import type { Redis } from 'ioredis';
import type { PushEvent } from './events';

/**
 * "At most one notification per subject per window": the first claim in a window wins. Claiming is
 * idempotent per claimant, so a retried fan-out of the same event is let through again instead of
 * losing the notification it had claimed the slot for.
 */
export interface PushThrottle {
  claim(subject: string, claimant: string, windowMs: number): Promise<boolean>;
}

/** Cluster mode: one slot per subject in Redis, shared by every worker (`SET NX PX`). */
export function redisThrottle(redis: Redis, prefix: string): PushThrottle {
  return {
    async claim(subject, claimant, windowMs) {
      const key = `${prefix}push-throttle:${subject}`;
      if ((await redis.set(key, claimant, 'PX', windowMs, 'NX')) === 'OK') return true;
      return (await redis.get(key)) === claimant;
    },
  };
}

/** Single-node mode: the same slots in this process's memory. */
export function memoryThrottle(): PushThrottle {
  const slots = new Map<string, { claimant: string; until: number }>();
  let lastSweep = Date.now();
  return {
    async claim(subject, claimant, windowMs) {
      const now = Date.now();
      // Slots live one window; sweeping once a window keeps the map to the subjects active lately.
      if (now - lastSweep > windowMs) {
        lastSweep = now;
        for (const [key, slot] of slots) if (slot.until <= now) slots.delete(key);
      }
      const slot = slots.get(subject);
      if (slot && slot.until > now) return slot.claimant === claimant;
      slots.set(subject, { claimant, until: now + windowMs });
      return true;
    },
  };
}

/** A chatty visitor does not bury an agent: one `visitor_message` notification per conversation and agent per window. */
export function throttleAllows(throttle: PushThrottle, event: PushEvent, userId: number, windowMs: number): Promise<boolean> {
  if (event.event !== 'visitor_message' || !event.conversationId) return Promise.resolve(true);
  return throttle.claim(`${event.conversationId}:${userId}`, event.key, windowMs);
}
