import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../context';

/**
 * The advisory lock every web process holds on its database, in PostgreSQL's two-key form (kept apart
 * from the one-key locks other tools may take): 'parl' and 1. Tests read pg_locks with it.
 */
export const NODE_LOCK_KEY = [0x7061726c, 1] as const;

export type NodeMode = 'single-node' | 'cluster';

/** Another process serves this database in a way this one cannot join; the message says what to do. */
export class DatabaseInUse extends Error {
  override name = 'DatabaseInUse';
}

const TRY_LOCK: Record<NodeMode, string> = {
  'single-node': 'SELECT pg_try_advisory_lock($1, $2) AS locked',
  cluster: 'SELECT pg_try_advisory_lock_shared($1, $2) AS locked',
};

const HOLDER = `SELECT mode FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  LIMIT 1`;

// The server drops a vanished client's session, and with it the lock, within about half a minute,
// so a single node whose host died is not locked out by its own ghost for the OS default of hours.
const SESSION_KEEPALIVES = 'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3';
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * One single node alone on its database, or any number of cluster nodes together, never both: a
 * single node holds the lock exclusively, cluster nodes share it, each on a connection of its own kept
 * for the process's life (the lock lasts as long as that session). When that connection drops
 * (PostgreSQL restarted, the session was killed) the lock is gone: the node keeps serving, reports not
 * ready, and takes the lock again as soon as it can; if another process took it meanwhile, `lost`
 * fires and the node must stop, because that process now serves the database.
 */
export class NodeLock extends EventEmitter<{ lost: [error: DatabaseInUse] }> {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  private closed = false;

  private constructor(
    private readonly url: string,
    readonly mode: NodeMode,
    private readonly logger: Logger,
  ) {
    super();
  }

  /** Takes the lock or throws: DatabaseInUse naming what to do, or the connection's own error. */
  static async take(url: string, mode: NodeMode, logger: Logger): Promise<NodeLock> {
    const lock = new NodeLock(url, mode, logger.child({ component: 'node-lock' }));
    await lock.acquire();
    return lock;
  }

  get held(): boolean {
    return this.client !== undefined;
  }

  readonly readiness: ReadinessCheck = {
    name: 'lock',
    check: async () => {
      if (!this.held) throw new Error('the database lock was lost with its connection; taking it again');
    },
  };

  /** Ends the session, which releases the lock. */
  async release(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async acquire(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'parley node lock',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // An idle client reports a dropped connection as `error` (then `end`); without a listener it would crash the process.
    client.on('error', (error) => this.logger.warn({ err: error }, 'database lock connection failed'));
    try {
      await client.connect();
      await client.query(SESSION_KEEPALIVES);
      await this.lock(client);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    client.on('end', () => this.dropped(client));
    this.client = client;
  }

  private async lock(client: pg.Client): Promise<void> {
    // A holder can leave between the refused try and the look at pg_locks: then try again.
    for (let attempt = 1; ; attempt++) {
      const [tried] = (await client.query<{ locked: boolean }>(TRY_LOCK[this.mode], [...NODE_LOCK_KEY])).rows;
      if (tried?.locked) return;
      const [holder] = (await client.query<{ mode: string }>(HOLDER, [...NODE_LOCK_KEY])).rows;
      if (holder || attempt === 3) throw new DatabaseInUse(refusal(this.mode, holder?.mode === 'ExclusiveLock' ? 'single-node' : 'cluster'));
    }
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    // A dependency going away (a Postgres restart), not a fault of this process: a warning, like every other outage line.
    this.logger.warn('lost the database lock with its connection; taking it again');
    this.retryMs = FIRST_RETRY_MS;
    this.scheduleRetake();
  }

  private scheduleRetake(): void {
    this.retry = setTimeout(() => void this.retake(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private async retake(): Promise<void> {
    if (this.closed) return;
    try {
      await this.acquire();
    } catch (error) {
      if (this.closed) return;
      if (error instanceof DatabaseInUse) {
        this.logger.error({ reason: error.message }, 'another process took the database lock: this node must stop');
        this.emit('lost', error);
        return;
      }
      this.logger.warn({ err: error, retryInMs: this.retryMs }, 'could not take the database lock again yet');
      return this.scheduleRetake();
    }
    if (this.held) this.logger.info('took the database lock again');
  }
}

/** What to do about a refused lock, by this process's mode and the holder's. */
function refusal(mode: NodeMode, holder: NodeMode): string {
  if (mode === 'cluster') {
    return 'A Parley web process without REDIS_URL (single-node mode) already serves this database. Stop it before starting web processes with REDIS_URL on it.';
  }
  if (holder === 'single-node') {
    return 'Another Parley web process without REDIS_URL (single-node mode) already serves this database, and a single node must be alone on it. Stop that one first, or set the same REDIS_URL on every web process to run them as a cluster.';
  }
  return 'Parley web processes with REDIS_URL (cluster mode) serve this database. Set REDIS_URL (and REDIS_PREFIX) as they have them to join them, or stop them first.';
}
