import type { Logger } from 'pino';
import type { UntypedMessage } from './protocol';

/** Durable delayed messages to actors. One reminder per (actor, key): scheduling again replaces it. */
export interface Reminders {
  schedule(kind: string, id: string, message: UntypedMessage, options: { key: string; delayMs: number }): Promise<void>;
  cancel(kind: string, id: string, key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Hands a due reminder to its actor through the router. `deliveryId` is unique per scheduled
 * reminder, so it doubles as the ask's idempotency key when a delivery is retried.
 */
export type ReminderDelivery = (kind: string, id: string, message: UntypedMessage, deliveryId: string) => Promise<void>;

const RETRY_DELAYS_MS = [500, 2_000, 5_000, 15_000];

/** Single-node mode: in-process timers (no Redis to keep them in), retried a few times on failure. */
export class TimerReminders implements Reminders {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private scheduled = 0;

  constructor(
    private readonly deliver: ReminderDelivery,
    private readonly logger: Logger,
  ) {}

  async schedule(kind: string, id: string, message: UntypedMessage, { key, delayMs }: { key: string; delayMs: number }): Promise<void> {
    const name = reminderId(kind, id, key);
    clearTimeout(this.timers.get(name));
    const deliveryId = `${name}|${++this.scheduled}`;
    const attempt = (tries: number) => {
      const timer = setTimeout(() => {
        this.deliver(kind, id, message, deliveryId).then(
          () => this.timers.get(name) === timer && this.timers.delete(name),
          (error: unknown) => {
            const retryIn = RETRY_DELAYS_MS[tries];
            this.logger.warn({ err: error, reminder: name, retryIn }, 'reminder delivery failed');
            if (retryIn === undefined) this.timers.delete(name);
            else attempt(tries + 1);
          },
        );
      }, tries === 0 ? delayMs : RETRY_DELAYS_MS[tries - 1]);
      this.timers.set(name, timer);
    };
    attempt(0);
  }

  async cancel(kind: string, id: string, key: string): Promise<void> {
    const name = reminderId(kind, id, key);
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
  }

  async close(): Promise<void> {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** Deterministic per (actor, key); BullMQ refuses ':' in job ids, which encodeURIComponent escapes. */
export function reminderId(kind: string, id: string, key: string): string {
  return [kind, id, key].map(encodeURIComponent).join('|');
}
