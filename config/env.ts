import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { PROVIDER_SLUGS, type ProviderSlug } from './providers';

/** Thrown when the environment cannot make a valid Config; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const url = (protocols: string[]) =>
  z.url({ protocol: new RegExp(`^(${protocols.join('|')})$`), error: `must be a ${protocols.join(' or ')} URL` });
const httpUrl = url(['http', 'https']);

const providerVars = Object.fromEntries(
  PROVIDER_SLUGS.flatMap((slug) => [
    [`PROVIDER_${slug.toUpperCase()}_BASE_URL`, httpUrl.optional()],
    [`PROVIDER_${slug.toUpperCase()}_API_KEY`, z.string().optional()],
  ]),
) as Record<string, z.ZodOptional<z.ZodString>>;

/** Every environment variable Parley reads, by its own name (README "Configuration", docs/operations.md). */
const envSchema = z.object({
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(3000),
  APP_URL: httpUrl.optional(),
  APP_KEY: z.string().min(32, 'must be at least 32 characters (or base64:<32+ bytes>)').optional(),
  DATABASE_URL: url(['postgres', 'postgresql']).optional(),
  REDIS_URL: url(['redis', 'rediss']).optional(),
  REDIS_PREFIX: z.string().regex(/^[\w:.-]+$/, 'may hold letters, digits and : . - _ only').default('parley:'),
  DATA_DIR: z.string().default('./.parley'),
  NODE_ID: z.string().regex(/^[\w.-]+$/, 'may hold letters, digits and . - _ only').optional(),
  CLUSTER_HEARTBEAT_MS: z.coerce.number({ error: 'must be a number of milliseconds' }).int().min(50).max(60_000).default(2_000),
  CLUSTER_LEASE_TTL_MS: z.coerce.number({ error: 'must be a number of milliseconds' }).int().min(300).max(300_000).default(12_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.string().default('loopback'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  WORKER_PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).optional(),
  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
  VAPID_SUBJECT: z.string().regex(/^(mailto:|https:)/, 'must start with mailto: or https:').optional(),
  CRAWL_ALLOW_PRIVATE: flag.default(false),
  OUTBOUND_ALLOW_PRIVATE: flag.default(false),
  WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  CRAWL_MAX_PAGES: z.coerce.number({ error: 'must be a number of pages' }).int().min(1).max(1000).default(50),
  PROVIDER_TIMEOUT_MS: z.coerce.number({ error: 'must be a number of milliseconds' }).int().min(100).max(600_000).default(60_000),
  VISITOR_POLL_SECONDS: z.coerce.number({ error: 'must be a number of seconds' }).int().min(1).max(300).optional(),
  AI_IDLE_CLOSE_MINUTES: z.coerce.number({ error: 'must be a number of minutes' }).positive().max(10_080).default(30),
  SMTP_URL: url(['smtp', 'smtps']).optional(),
  MAIL_FROM: z.string().max(320).regex(/@/, 'must be an email address, optionally with a name: "Shop <help@shop.example>"').optional(),
  OFFLINE_FOLLOWUP_MINUTES: z.coerce.number({ error: 'must be a number of minutes' }).positive().max(1440).default(10),
  PARLEY_DEMO: flag.default(false),
  SHOPIFY_BASE_URL: httpUrl.optional(),
  STRIPE_BASE_URL: httpUrl.optional(),
  ...providerVars,
});

/** The names of every setting, for `.env.example` and its test. */
export const SETTING_NAMES: readonly string[] = Object.keys(envSchema.shape);

export interface ProviderSettings {
  baseUrl?: string;
  apiKey?: string;
}

export interface Config {
  port: number;
  appUrl: string;
  appKey: Buffer;
  databaseUrl?: string;
  redisUrl?: string;
  redisPrefix: string;
  dataDir: string;
  nodeId: string;
  /** Cluster heartbeat and shard lease TTL (src/actors/cluster/timing.ts derives every other interval). */
  cluster: { heartbeatMs: number; leaseTtlMs: number };
  logLevel: string;
  trustProxy: string;
  /** Bearer token that opens /metrics to non-loopback clients; unset = loopback clients only. */
  metricsToken?: string;
  /** The worker's /healthz, /readyz and /metrics port; unset = the worker opens no port. */
  workerPort?: number;
  vapid?: { publicKey: string; privateKey: string; subject: string };
  /**
   * OUTBOUND_ALLOW_PRIVATE (tests only): lets push delivery reach loopback and
   * private addresses. Separate from `crawl.allowPrivate` so a test server can push to a local stand-in
   * while its crawler still refuses private addresses.
   */
  outbound: { allowPrivate: boolean };
  /** WEBHOOK_ALLOW_PRIVATE (tests only): lets webhook deliveries reach loopback and private addresses. */
  webhooks: { allowPrivate: boolean };
  /** The URL crawler's limits (docs/api.md "Knowledge"); `allowPrivate` is for tests only. */
  crawl: { allowPrivate: boolean; maxPages: number; maxBytesPerPage: number };
  /** Longest wait for a provider's first byte, and between two streamed chunks. */
  providerTimeoutMs: number;
  /** Overrides the widget heartbeat interval (src/domain/visitors/presence.ts holds the default); tests shorten it. */
  visitorPollSeconds?: number;
  /** A conversation the AI answered and the visitor left alone this long closes, resolved by the AI (fractions allowed, for tests). */
  aiIdleCloseMinutes: number;
  /**
   * Offline follow-up by email (docs/routing.md): unset `smtpUrl` = off. `delayMinutes`: how long an
   * agent line may stay undelivered before it is emailed (fractions allowed, for tests).
   */
  mail: { smtpUrl?: string; from: string; delayMinutes: number };
  integrations: { shopifyBaseUrl?: string; stripeBaseUrl?: string };
  providers: Record<ProviderSlug, ProviderSettings>;
  /** Create the demo workspace at start (always in embedded mode; elsewhere only with PARLEY_DEMO=1). */
  demo: boolean;
  /** Single-node mode: no Redis; actors, fan-out and jobs all run in this process. */
  singleNode: boolean;
  /** Embedded PostgreSQL under DATA_DIR because no DATABASE_URL was given. */
  embeddedDatabase: boolean;
}

/** Reads the environment (and a `.env` file when present) into a frozen Config, or throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = envSchema.safeParse(withoutEmptyValues(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
  }
  const e = parsed.data;
  if (e.CLUSTER_LEASE_TTL_MS < 3 * e.CLUSTER_HEARTBEAT_MS) {
    throw new ConfigError('Invalid configuration: CLUSTER_LEASE_TTL_MS: must be at least 3 x CLUSTER_HEARTBEAT_MS, or leases lapse before a dead node is noticed');
  }
  const dataDir = resolve(e.DATA_DIR);
  const embeddedDatabase = !e.DATABASE_URL;
  const vapid = vapidSettings(e.VAPID_PUBLIC_KEY, e.VAPID_PRIVATE_KEY, e.VAPID_SUBJECT);

  const config: Config = {
    port: e.PORT,
    appUrl: (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    appKey: e.APP_KEY ? decodeAppKey(e.APP_KEY) : embeddedAppKey(embeddedDatabase, dataDir),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    dataDir,
    nodeId: e.NODE_ID ?? `${hostname()}-${process.pid}`,
    cluster: { heartbeatMs: e.CLUSTER_HEARTBEAT_MS, leaseTtlMs: e.CLUSTER_LEASE_TTL_MS },
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    metricsToken: e.METRICS_TOKEN,
    workerPort: e.WORKER_PORT,
    vapid,
    outbound: { allowPrivate: e.OUTBOUND_ALLOW_PRIVATE },
    webhooks: { allowPrivate: e.WEBHOOK_ALLOW_PRIVATE },
    crawl: { allowPrivate: e.CRAWL_ALLOW_PRIVATE, maxPages: e.CRAWL_MAX_PAGES, maxBytesPerPage: 2 * 1024 * 1024 },
    providerTimeoutMs: e.PROVIDER_TIMEOUT_MS,
    visitorPollSeconds: e.VISITOR_POLL_SECONDS,
    aiIdleCloseMinutes: e.AI_IDLE_CLOSE_MINUTES,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? `Parley <no-reply@${new URL(e.APP_URL ?? 'http://localhost').hostname}>`, delayMinutes: e.OFFLINE_FOLLOWUP_MINUTES },
    integrations: { shopifyBaseUrl: e.SHOPIFY_BASE_URL, stripeBaseUrl: e.STRIPE_BASE_URL },
    providers: Object.fromEntries(
      PROVIDER_SLUGS.map((slug) => {
        const upper = slug.toUpperCase();
        const settings = e as Record<string, unknown>;
        return [slug, { baseUrl: settings[`PROVIDER_${upper}_BASE_URL`], apiKey: settings[`PROVIDER_${upper}_API_KEY`] }];
      }),
    ) as Record<ProviderSlug, ProviderSettings>,
    demo: embeddedDatabase || e.PARLEY_DEMO,
    singleNode: !e.REDIS_URL,
    embeddedDatabase,
  };
  return Object.freeze(config);
}

/** `.env` lines like `REDIS_URL=` mean "unset", not "empty string". */
function withoutEmptyValues(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]?.trim()));
}

function vapidSettings(publicKey?: string, privateKey?: string, subject?: string): Config['vapid'] {
  if (!publicKey && !privateKey) return undefined;
  if (!publicKey || !privateKey) {
    throw new ConfigError(`Invalid configuration: ${publicKey ? 'VAPID_PRIVATE_KEY' : 'VAPID_PUBLIC_KEY'}: must be set together with the other VAPID key`);
  }
  return { publicKey, privateKey, subject: subject ?? 'mailto:admin@localhost' };
}

function decodeAppKey(value: string): Buffer {
  if (!value.startsWith('base64:')) return Buffer.from(value, 'utf8');
  const key = Buffer.from(value.slice('base64:'.length), 'base64');
  if (key.length < 32) throw new ConfigError('Invalid configuration: APP_KEY: base64 key must decode to at least 32 bytes');
  return key;
}

/** In embedded mode a missing APP_KEY is generated once into DATA_DIR; with an external database it is required. */
function embeddedAppKey(embedded: boolean, dataDir: string): Buffer {
  if (!embedded) throw new ConfigError('Invalid configuration: APP_KEY: required when DATABASE_URL is set');
  const file = join(dataDir, 'app.key');
  if (existsSync(file)) return decodeAppKey(readFileSync(file, 'utf8').trim());
  ensureDataDir(dataDir);
  const key = `base64:${randomBytes(32).toString('base64')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return decodeAppKey(key);
}

/**
 * Creates DATA_DIR if needed. It is mode 0711: the embedded Postgres server runs as another OS user and
 * must traverse it, while the files in it stay private (0600).
 */
export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, 0o711);
}

/** Loads `.env` from the working directory into process.env when present (existing variables win). */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
