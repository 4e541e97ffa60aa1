import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { PROBE_TABLE } from '../../test/support/actors/probe';
import { defer } from './cleanup';
import { CLI, runChild } from './processes';

/** Where the bench finds Postgres (a superuser that may CREATE DATABASE) and Redis. */
export const ADMIN_DATABASE_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Any valid key will do: the bench stores no secrets, but config refuses to start without one. */
export const APP_KEY = `base64:${randomBytes(32).toString('base64')}`;

// The pid in every name lets a later run tell leftovers of a dead run (kill -9) from a live one's.
const RUN = `${process.pid}_${randomBytes(3).toString('hex')}`;
const DATABASE_PATTERN = /^parley_bench_(\d+)_/;
const PREFIX_PATTERN = /^parley-bench-(\d+)-/;

export async function adminQuery<T extends object>(sql: string, url = ADMIN_DATABASE_URL): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for one benchmark (shard fences are per database, so runs never disturb each
 * other or a dev database), migrated with `parley migrate` like production, plus the probe table.
 * Dropped when the benchmark's scope ends.
 */
export async function benchDatabase(label: string): Promise<string> {
  const name = `parley_bench_${RUN}_${label}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  defer(`drop database ${name}`, () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const migrated = await runChild([CLI, 'migrate'], { DATABASE_URL: databaseUrl, APP_KEY, LOG_LEVEL: 'warn' }, 120_000);
  if (migrated.code !== 0) throw new Error(`parley migrate failed (${String(migrated.code)}): ${migrated.stdout}${migrated.stderr}`);
  await adminQuery(PROBE_TABLE, databaseUrl);
  return databaseUrl;
}

/** A Redis key prefix for one benchmark; its keys are deleted when the benchmark's scope ends. */
export function benchRedisPrefix(label: string): string {
  const prefix = `parley-bench-${RUN.replace('_', '-')}-${label}:`;
  defer(`delete Redis keys ${prefix}*`, () => deleteKeys(`${prefix}*`));
  return prefix;
}

async function deleteKeys(pattern: string, keep: (key: string) => boolean = () => false): Promise<number> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      const doomed = keys.filter((key) => !keep(key));
      if (doomed.length) deleted += await redis.unlink(...doomed);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Drops databases and Redis keys left by bench runs that died without cleaning up (kill -9, power loss). */
export async function sweepLeftovers(): Promise<string[]> {
  const swept: string[] = [];
  const databases = await adminQuery<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'parley\\_bench\\_%'");
  for (const { datname } of databases) {
    const pid = Number(DATABASE_PATTERN.exec(datname)?.[1]);
    if (!pid || alive(pid)) continue;
    await adminQuery(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    swept.push(`database ${datname}`);
  }
  const keys = await deleteKeys('parley-bench-*', (key) => {
    const pid = Number(PREFIX_PATTERN.exec(key)?.[1]);
    return !pid || alive(pid);
  });
  if (keys) swept.push(`${keys} Redis keys`);
  return swept;
}
