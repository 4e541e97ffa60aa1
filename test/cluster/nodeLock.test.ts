import { strict as assert } from 'node:assert';
import { Client } from 'pg';
import { NODE_LOCK_KEY } from '../../src/db/nodeLock';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { REDIS_URL, TEST_ENV } from '../support/env';
import { eventually } from '../support/eventually';
import { freshIp } from '../support/portal';
import { childEnv, cliOk, runNode, SERVER, type Finished } from '../support/processes';
import { postStream } from '../support/sse';

/** Who holds the node lock on the deployment's database, by session. */
const LOCK_HOLDERS = `SELECT pid, mode FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/** A start refused by the lock: non-zero exit before listening, and a message (no stack trace) naming REDIS_URL. */
function assertRefused(run: Finished): void {
  assert.equal(run.signal, null);
  assert.notEqual(run.code, 0, `the process should not start\nstdout: ${run.stdout}`);
  assert.match(run.stderr, /\bREDIS_URL\b/, `stderr names REDIS_URL: ${run.stderr}`);
  assert.doesNotMatch(run.stderr, /^\s+at /m, `no stack trace: ${run.stderr}`);
  assert.ok(!run.stdout.includes('"msg":"listening"'), 'it never listened');
}

interface Traffic {
  /** Rounds finished so far (each: one new conversation, one follow-up in an open one, one /readyz). */
  rounds(): number;
  /** Stops after the running round and returns every answer that was not a success. */
  stop(): Promise<string[]>;
}

const MESSAGES_PER_VISITOR = 5;

/** Visitors chatting with the node without pause, conversation actors staying active between their messages. */
function steadyTraffic(url: string, key: string): Traffic {
  const failures: string[] = [];
  let rounds = 0;
  let running = true;
  const say = async (visitor: string, message: string, conversation?: string): Promise<string | undefined> => {
    const body = { visitor_id: visitor, message, ...(conversation && { conversation_id: conversation }) };
    // A fresh client address per message keeps the per-IP stream limit out of the way.
    const reply = await postStream(`/widget/${key}/stream`, body, { 'X-Forwarded-For': freshIp() }, url);
    const last = reply.events.at(-1);
    if (reply.status !== 200 || last?.event !== 'done') failures.push(`stream ${reply.status} ${JSON.stringify(reply.body ?? last)}`);
    return reply.events.find((event) => event.event === 'meta')?.data.conversation_id as string | undefined;
  };
  const visitor = async (name: string) => {
    let conversation: string | undefined;
    for (let message = 0; running; message++) {
      // A new visitor every few messages: more than 10 a minute in one conversation is flooding (docs/api.md).
      if (message % MESSAGES_PER_VISITOR === 0) conversation = undefined;
      const id = `${name}-${Math.floor(message / MESSAGES_PER_VISITOR)}`;
      conversation = (await say(id, 'When are you open?', conversation)) ?? conversation;
      const ready = await fetch(`${url}/readyz`);
      if (ready.status !== 200) failures.push(`readyz ${ready.status} ${await ready.text()}`);
      else await ready.body?.cancel();
      rounds++;
    }
  };
  const visitors = Promise.all(['ana', 'ben', 'cid'].map(visitor));
  return {
    rounds: () => rounds,
    stop: async () => {
      running = false;
      await visitors;
      return failures;
    },
  };
}

describe('one single node per database (the node lock)', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let node: ClusterNode;
  let key: string;

  before(async () => {
    deployment = await Deployment.create({ singleNode: true });
    node = await deployment.start('first');
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Lock Shop', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { public_key: string } };
    key = chatbot.public_key;
  });
  after(() => deployment?.destroy());

  it('a second process without REDIS_URL exits at start naming REDIS_URL; the first answers every request meanwhile, ready throughout', async () => {
    const traffic = steadyTraffic(node.url, key);
    try {
      await eventually(traffic.rounds, (rounds) => rounds >= 6, 30_000);
      const second = await runNode(SERVER, [], { env: deployment.env({ NODE_ID: 'second' }), timeoutMs: 30_000 });
      assertRefused(second);
      assert.match(second.stderr, /single-node mode/);
      const afterExit = traffic.rounds();
      await eventually(traffic.rounds, (rounds) => rounds >= afterExit + 6, 30_000);
    } finally {
      assert.deepEqual(await traffic.stop(), []);
    }
    const { member } = await node.state();
    const owners = await deployment.query<{ owner: string }>('SELECT DISTINCT owner FROM shard_fences');
    assert.deepEqual(owners, [{ owner: member }], 'the second process never bumped a shard fence');
  });

  it('a process with REDIS_URL (cluster mode) on the single node\'s database exits at start naming REDIS_URL', async () => {
    const run = await runNode(SERVER, [], { env: { ...deployment.env({ NODE_ID: 'clustered' }), REDIS_URL }, timeoutMs: 30_000 });
    assertRefused(run);
    assert.match(run.stderr, /single-node mode/);
  });

  it('the command line does not take the lock: it works beside the running node', async () => {
    assert.deepEqual(await cliOk(['migrate'], deployment.env()), { migrated: [] });
  });

  it('takes the lock again when its connection drops, and stays ready once it has', async () => {
    const [held] = await deployment.query<{ pid: number; mode: string }>(LOCK_HOLDERS, [...NODE_LOCK_KEY]);
    assert.equal(held?.mode, 'ExclusiveLock');
    await deployment.query('SELECT pg_terminate_backend($1)', [held.pid]);
    await node.process.waitForLog((entry) => entry.msg === 'took the database lock again', 15_000);
    const holders = await deployment.query<{ pid: number; mode: string }>(LOCK_HOLDERS, [...NODE_LOCK_KEY]);
    assert.equal(holders.length, 1);
    assert.notEqual(holders[0]!.pid, held.pid);
    assert.equal(holders[0]!.mode, 'ExclusiveLock');
    const ready = await fetch(`${node.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { checks: Record<string, string> }).checks.lock, 'ok');
  });

  it('stops with a non-zero exit naming REDIS_URL when another single node took the database while its lock was down', async () => {
    const [held] = await deployment.query<{ pid: number }>(LOCK_HOLDERS, [...NODE_LOCK_KEY]);
    // Stands in for a second single node: queued behind the first, it gets the lock the moment the first's session ends.
    const intruder = new Client({ connectionString: deployment.databaseUrl });
    await intruder.connect();
    try {
      const [{ pid }] = (await intruder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      const taken = intruder.query('SELECT pg_advisory_lock($1, $2)', [...NODE_LOCK_KEY]);
      await eventually(
        () => deployment.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid = $1", [pid]),
        (waiting) => waiting.length === 1,
      );
      await deployment.query('SELECT pg_terminate_backend($1)', [held!.pid]);
      await taken;
      const exit = await node.process.exitWithin(20_000);
      assert.deepEqual(exit, { code: 1, signal: null }, node.process.stderr);
      assert.match(node.process.stderr, /\bREDIS_URL\b/);
    } finally {
      await intruder.end();
    }
  });
});

describe('a single node on a database that cluster nodes serve', () => {
  it('exits at start naming REDIS_URL (the test server holds the lock in cluster mode)', async function () {
    this.timeout(30_000);
    const run = await runNode(SERVER, [], { env: childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'info', NODE_ID: 'lonely' }, ['REDIS_URL']), timeoutMs: 20_000 });
    assertRefused(run);
    assert.match(run.stderr, /cluster mode/);
  });
});
