import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../readiness';
import { DedicatedSession } from './dedicatedSession';

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

/**
 * One single node alone on its database, or any number of cluster nodes together, never both: a
 * single node holds the lock exclusively, cluster nodes share it, each on a session of its own kept
 * for the process's life (the lock lasts as long as that session). When the session drops (PostgreSQL
 * restarted, the session was killed) the lock is gone: the node keeps serving, reports not ready, and
 * takes the lock again as soon as it can; if another process took it meanwhile, `lost` fires and the
 * node must stop, because that process now serves the database.
 */
export class NodeLock extends EventEmitter<{ lost: [error: DatabaseInUse] }> {
  private constructor(
    private readonly session: DedicatedSession,
    readonly mode: NodeMode,
  ) {
    super();
  }

  /** Takes the lock or throws: DatabaseInUse naming what to do, or the connection's own error. */
  static async take(url: string, mode: NodeMode, logger: Logger): Promise<NodeLock> {
    const log = logger.child({ component: 'node-lock' });
    const session = await DedicatedSession.open({
      url,
      purpose: 'database lock',
      logger: log,
      prepare: async (client) => {
        await client.query(SESSION_KEEPALIVES);
        await lock(client, mode);
      },
      isFinal: (error) => error instanceof DatabaseInUse,
    });
    const nodeLock = new NodeLock(session, mode);
    session.on('reopened', () => log.info('took the database lock again'));
    session.on('stopped', (error) => {
      log.error({ reason: (error as DatabaseInUse).message }, 'another process took the database lock: this node must stop');
      nodeLock.emit('lost', error as DatabaseInUse);
    });
    return nodeLock;
  }

  get held(): boolean {
    return this.session.connected;
  }

  readonly readiness: ReadinessCheck = {
    name: 'lock',
    check: async () => {
      if (!this.held) throw new Error('the database lock was lost with its connection; taking it again');
    },
  };

  /** Ends the session, which releases the lock. */
  release(): Promise<void> {
    return this.session.close();
  }
}

async function lock(client: pg.Client, mode: NodeMode): Promise<void> {
  // A holder can leave between the refused try and the look at pg_locks: then try again.
  for (let attempt = 1; ; attempt++) {
    const [tried] = (await client.query<{ locked: boolean }>(TRY_LOCK[mode], [...NODE_LOCK_KEY])).rows;
    if (tried?.locked) return;
    const [holder] = (await client.query<{ mode: string }>(HOLDER, [...NODE_LOCK_KEY])).rows;
    if (holder || attempt === 3) throw new DatabaseInUse(refusal(mode, holder?.mode === 'ExclusiveLock' ? 'single-node' : 'cluster'));
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
