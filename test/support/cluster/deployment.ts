import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig } from '../../../config/env';
import { createLogger } from '../../../src/logger';
import { shardOf } from '../../../src/actors/cluster/shards';
import { startActorSystem, type ActorSystem } from '../../../src/actors/system';
import { PROBE_TABLE } from '../actors/probe';
import { databaseUrlOf, REDIS_URL, TEST_DATABASE, TEST_ENV, TEST_REDIS_PREFIX } from '../env';
import { server } from '../hooks';
import { withClient } from '../pg';
import { TcpProxy } from '../tcpProxy';
import { childEnv, cliOk, ROOT } from '../processes';
import { ClusterNode } from './node';

const NODE_SCRIPT = resolve(ROOT, 'dist/test/support/cluster/nodeMain.js');

/** The cluster timings of TEST_ENV: short enough to watch several failovers in seconds. */
export const LEASE_TTL_MS = Number(TEST_ENV.CLUSTER_LEASE_TTL_MS);

/**
 * A separate deployment for cluster tests: its own database (shard fences are per database) and
 * Redis prefix, real web processes started and killed at will, and a send-only actor client here.
 */
export class Deployment {
  readonly nodes: ClusterNode[] = [];
  private client: ActorSystem | undefined;
  private clientRedis: Redis | undefined;

  private constructor(
    readonly name: string,
    readonly databaseUrl: string,
    readonly redisPrefix: string,
    private readonly singleNode: boolean,
  ) {}

  static async create(options: { singleNode?: boolean } = {}): Promise<Deployment> {
    const name = `${TEST_DATABASE}_${randomBytes(3).toString('hex')}`;
    await withClient((client) => client.query(`CREATE DATABASE ${name}`));
    const deployment = new Deployment(name, databaseUrlOf(name), `${TEST_REDIS_PREFIX}${name}:`, options.singleNode ?? false);
    await cliOk(['migrate'], deployment.env());
    await deployment.query(PROBE_TABLE);
    return deployment;
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const set = {
      ...TEST_ENV,
      DATABASE_URL: this.databaseUrl,
      REDIS_PREFIX: this.redisPrefix,
      PORT: '0',
      LOG_LEVEL: 'info',
      ...extra,
    };
    return childEnv(set, this.singleNode ? ['REDIS_URL'] : []);
  }

  async start(name = `n${this.nodes.length + 1}`, env: Record<string, string> = {}): Promise<ClusterNode> {
    const node = await ClusterNode.start(NODE_SCRIPT, name, this.env({ NODE_ID: name, ...env }));
    this.nodes.push(node);
    return node;
  }

  live(): ClusterNode[] {
    return this.nodes.filter((node) => node.alive);
  }

  /** Resolves when the live nodes together serve every shard, each shard exactly once. */
  async settled(timeoutMs = 15_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const owned = await Promise.all(this.live().map((node) => node.state().then((s) => s.owned).catch(() => [] as number[])));
      const all = owned.flat();
      if (all.length === 1024 && new Set(all).size === 1024 && owned.every((o) => o.length > 0)) return;
      if (Date.now() > until) throw new Error(`cluster did not settle: ${owned.map((o) => o.length).join('+')} shards owned`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The live node that serves this actor's shard now. */
  async ownerOf(kind: string, id: string): Promise<ClusterNode> {
    const shard = shardOf(kind, id);
    for (const node of this.live()) if ((await node.state()).owned.includes(shard)) return node;
    throw new Error(`no live node serves ${kind} ${id} (shard ${shard})`);
  }

  /** A send-only member in this process: asks go over Redis exactly as a web node's would. */
  async actors(): Promise<ActorSystem> {
    if (!this.client) {
      const config = loadConfig({ ...TEST_ENV, REDIS_PREFIX: this.redisPrefix, NODE_ID: 'test-client' });
      this.clientRedis = new Redis(REDIS_URL);
      const ctx = { ...server().ctx, config, redis: this.clientRedis, logger: createLogger('silent') };
      this.client = await startActorSystem(ctx, [], { observer: true });
    }
    return this.client;
  }

  /** A proxy to this deployment's database that a test can cut, and the `DATABASE_URL` through it: the database taken from one node only. */
  async databaseBehindProxy(): Promise<{ proxy: TcpProxy; databaseUrl: string }> {
    const target = new URL(this.databaseUrl);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    target.host = `127.0.0.1:${proxy.port}`;
    return { proxy, databaseUrl: target.toString() };
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return withClient(async (client) => (await client.query(sql, params)).rows as T[], this.databaseUrl);
  }

  async destroy(): Promise<void> {
    await Promise.all(this.live().map((node) => node.kill('SIGKILL')));
    await this.client?.close();
    await this.clientRedis?.quit();
    await withClient((client) => client.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`));
  }
}
