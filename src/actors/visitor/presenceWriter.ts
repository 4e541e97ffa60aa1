import type { Logger } from 'pino';
import type { AppContext } from '../../context';
import { upsertVisitors, type PageViewRecord, type VisitorRecord } from '../../domain/visitors/records';

const FLUSH_MS = 1_000;
/** Page views kept for a retry when Postgres is down; beyond this the oldest are dropped (soft data). */
const MAX_PENDING_VIEWS = 50_000;
/** A batch that failed this many flushes in a row is dropped: soft state must not clog the writer. */
const MAX_ATTEMPTS = 5;

/**
 * Write-behind for presence: heartbeats only mark a visitor dirty here, and once a second every dirty
 * visitor and every new page view go to Postgres in one statement. Presence is soft state: a crash
 * loses at most the last second of `last_seen_at` and page views, which the next heartbeat repairs.
 * That is the deliberate price of thousands of beats a second; a fenced write per beat would cost a
 * transaction each. One writer per process (`presenceWriterOf`), shared by all its visitor actors.
 */
export class PresenceWriter {
  private dirty = new Map<string, VisitorRecord>();
  /** Taken for the running flush: still the newest state until it lands (an actor reloading reads it). */
  private writing = new Map<string, VisitorRecord>();
  private views: PageViewRecord[] = [];
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (visitors: readonly VisitorRecord[], views: readonly PageViewRecord[]) => Promise<void>,
    private readonly logger: Logger,
    intervalMs = FLUSH_MS,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs).unref();
  }

  /**
   * Records that the visitor's state changed. The record itself is kept, not a copy: its owner (the
   * visitor actor) keeps it current, and what is written is its state when the flush starts (read
   * at once, before the statement is sent), so the newest state wins as before without a copy per beat.
   */
  mark(visitor: VisitorRecord): void {
    this.dirty.set(key(visitor.companyId, visitor.visitorKey), visitor);
  }

  pageView(view: PageViewRecord): void {
    this.views.push(view);
  }

  /** State marked but not yet confirmed written: fresher than the row an activation would load. */
  pending(companyId: number, visitorKey: string): VisitorRecord | undefined {
    const name = key(companyId, visitorKey);
    const found = this.dirty.get(name) ?? this.writing.get(name);
    return found && { ...found };
  }

  /** Writes everything marked so far; resolves once it is written (or the attempt failed and was kept for the next). */
  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    if (!this.dirty.size && !this.views.length) return Promise.resolve();
    return (this.running = this.drain());
  }

  /** Final flush at shutdown; call after the actors have deactivated (they mark their last state). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flush();
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.writeOnce();
      } while (this.again);
    } finally {
      this.running = undefined;
    }
  }

  private async writeOnce(): Promise<void> {
    if (!this.dirty.size && !this.views.length) return;
    this.writing = this.dirty;
    this.dirty = new Map();
    const views = this.views;
    this.views = [];
    try {
      await this.write([...this.writing.values()], views);
      this.failures = 0;
    } catch (error) {
      const dropped = ++this.failures >= MAX_ATTEMPTS;
      const details = { err: error, visitors: this.writing.size, pageViews: views.length, attempts: this.failures };
      if (dropped) {
        this.failures = 0;
        this.logger.error(details, 'presence flush failed repeatedly; this batch is dropped');
        return;
      }
      this.logger.warn(details, 'presence flush failed; retrying with the next one');
      // Keep the batch unless a newer state was marked meanwhile; views go back in front, in order.
      for (const [name, visitor] of this.writing) if (!this.dirty.has(name)) this.dirty.set(name, visitor);
      this.views = [...views, ...this.views].slice(-MAX_PENDING_VIEWS);
    } finally {
      this.writing = new Map();
    }
  }
}

const key = (companyId: number, visitorKey: string) => `${companyId}:${visitorKey}`;

const writers = new WeakMap<AppContext, PresenceWriter>();

/** The process's writer for this context's database, made on first use. */
export function presenceWriterOf(ctx: AppContext): PresenceWriter {
  let writer = writers.get(ctx);
  if (!writer) {
    const logger = ctx.logger.child({ component: 'presence' });
    writer = new PresenceWriter((visitors, views) => upsertVisitors(ctx.db.sequelize, visitors, views), logger);
    writers.set(ctx, writer);
  }
  return writer;
}

/** Shutdown hook for web.ts: after `actors.leave()` (actors mark their last state as they deactivate), before the database closes. */
export async function closePresenceWriter(ctx: AppContext): Promise<void> {
  await writers.get(ctx)?.close();
}
