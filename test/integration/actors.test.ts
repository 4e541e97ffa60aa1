import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { shardOf } from '../../src/actors/cluster/shards';
import { AppError } from '../../src/errors';
import { get } from '../support/http';
import { server } from '../support/hooks';

/**
 * The runtime inside the test server: a real cluster member (Redis membership and leases, Postgres
 * fences) hosting the probe actor kind, asked in-process (the local fast path).
 */
describe('actor runtime (one node, real Redis and Postgres)', () => {
  const actors = () => server().actors;
  const newId = () => `probe-${randomBytes(4).toString('hex')}`;
  const sql = <T extends object>(query: string, replacements: Record<string, unknown> = {}) =>
    server().ctx.db.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
  const turnsOf = (actor: string) =>
    sql<{ turn: number; node: string; epoch: number; started_at: Date; ended_at: Date }>('SELECT * FROM probe_turns WHERE actor = :actor ORDER BY turn', { actor });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const code = (expected: string) => (error: unknown) => error instanceof AppError && error.code === expected;

  it('answers a typed ask; the actor writes under its shard\'s current fencing epoch', async () => {
    const id = newId();
    const reply = await actors().ask('probe', id, { type: 'increment' });
    const [fence] = await sql<{ epoch: number; owner: string }>('SELECT epoch, owner FROM shard_fences WHERE shard = :shard', { shard: shardOf('probe', id) });
    assert.deepEqual(reply, { turn: 1, node: actors().member, epoch: fence!.epoch });
    assert.equal(fence!.owner, actors().member);
    assert.deepEqual((await turnsOf(id)).map((t) => [t.turn, t.node, t.epoch]), [[1, actors().member, fence!.epoch]]);
  });

  it('runs one turn at a time per actor, and different actors in parallel', async () => {
    const id = newId();
    const replies = await Promise.all(Array.from({ length: 10 }, () => actors().ask('probe', id, { type: 'increment', holdMs: 15 })));
    assert.deepEqual(replies.map((r) => r.turn).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const turns = await turnsOf(id);
    for (let i = 1; i < turns.length; i++) assert.ok(turns[i]!.started_at >= turns[i - 1]!.ended_at, `turn ${i + 1} overlapped turn ${i}`);

    const started = Date.now();
    await Promise.all([newId(), newId(), newId()].map((other) => actors().ask('probe', other, { type: 'slow', ms: 300 })));
    assert.ok(Date.now() - started < 800, 'three actors waited for each other');
  });

  it('delivers a tell without waiting for its turn', async () => {
    const id = newId();
    actors().tell('probe', id, { type: 'increment', holdMs: 50 });
    assert.equal(await actors().ask('probe', id, { type: 'count' }), 1, 'the tell ran first, the ask queued behind it');
  });

  it('runs a retried message once per idempotency key', async () => {
    const id = newId();
    const options = { idempotencyKey: 'send-1' };
    const [first, retry] = await Promise.all([actors().ask('probe', id, { type: 'increment', holdMs: 50 }, options), actors().ask('probe', id, { type: 'increment' }, options)]);
    const late = await actors().ask('probe', id, { type: 'increment' }, options);
    assert.deepEqual(retry, first);
    assert.deepEqual(late, first);
    assert.equal((await turnsOf(id)).length, 1);
    assert.equal((await actors().ask('probe', id, { type: 'increment' }, { idempotencyKey: 'send-2' })).turn, 2);
  });

  it('runs a resent envelope once (a publish replayed after a reconnect carries no key of its own)', async () => {
    const id = newId();
    await actors().ask('probe', id, { type: 'count' }); // wait until this node serves the shard
    const redis = server().ctx.redis!;
    const envelope = JSON.stringify({ t: 'ask', c: 1, r: 'replayed-caller:1', d: Date.now() + 5_000, kind: 'probe', id, m: { type: 'increment' } });
    const channel = `${server().ctx.config.redisPrefix}actors:${actors().member}`;
    assert.equal(await redis.publish(channel, envelope), 1);
    assert.equal(await redis.publish(channel, envelope), 1);
    await sleep(300);
    assert.equal((await turnsOf(id)).length, 1);
  });

  it('hands errors to the caller; the actor and the node carry on', async () => {
    const id = newId();
    await assert.rejects(actors().ask('probe', id, { type: 'fail', known: true }), (e: unknown) => e instanceof AppError && e.status === 409 && e.code === 'probe_conflict');
    await assert.rejects(actors().ask('probe', id, { type: 'fail', known: false }), /probe exploded/);
    await assert.rejects(actors().ask('probe', id, { type: 'nonsense' } as never), code('unknown_message'));
    await assert.rejects(actors().ask('nobody' as 'probe', id, { type: 'count' }), code('unknown_actor'));
    assert.equal((await actors().ask('probe', id, { type: 'increment' })).turn, 1);
  });

  it('aborts a turn at its deadline, frees the caller at once, and goes on with the next message', async () => {
    const id = newId();
    const started = Date.now();
    await assert.rejects(actors().ask('probe', id, { type: 'slow', ms: 10_000 }, { timeoutMs: 300 }), code('turn_timeout'));
    assert.ok(Date.now() - started < 1_500, `caller waited ${Date.now() - started} ms`);
    assert.equal(await actors().ask('probe', id, { type: 'count' }), 0, 'the aborted turn released the mailbox');
  });

  it('streams ordered chunks, then the reply', async () => {
    const stream = actors().stream('probe', newId(), { type: 'stream', chunks: 5, gapMs: 5 });
    const seen = [];
    for await (const chunk of stream) seen.push(chunk);
    assert.deepEqual(seen, [1, 2, 3, 4, 5].map((seq) => ({ seq, chunk: `chunk ${seq}` })));
    assert.deepEqual(await stream.reply, { sent: 5, node: actors().member });
  });

  it('passivates an idle actor and reloads its state from Postgres on the next message', async () => {
    const id = newId();
    await actors().ask('probe', id, { type: 'increment' });
    await actors().ask('probe', id, { type: 'increment' });
    const before = (await actors().ask('probe', id, { type: 'ping' })).activations;
    await sleep(2_200); // idle time in tests is 1.5 s (hooks.ts), swept every quarter of that
    const after = await actors().ask('probe', id, { type: 'ping' });
    assert.ok(after.activations > before, 'the actor was activated again');
    assert.equal(await actors().ask('probe', id, { type: 'count' }), 2);
  });

  it('refuses a write under a stale epoch, drops the actor, and serves it again under a new epoch', async () => {
    const id = newId();
    const shard = shardOf('probe', id);
    const { epoch } = await actors().ask('probe', id, { type: 'increment' });
    // Another node acquired the shard behind this one's back (its lease still looks held here).
    await server().ctx.db.sequelize.query('UPDATE shard_fences SET epoch = epoch + 1 WHERE shard = :shard', { replacements: { shard } });
    await assert.rejects(actors().ask('probe', id, { type: 'increment' }), code('owner_lost'));
    assert.equal((await turnsOf(id)).length, 1, 'nothing from the stale epoch landed');
    const again = await actors().ask('probe', id, { type: 'increment' });
    assert.equal(again.turn, 2);
    assert.ok(again.epoch > epoch + 1, `re-acquired under a newer epoch (${again.epoch})`);
  });

  it('delivers a reminder once per key (scheduling again replaces it) and honours cancellation', async () => {
    const id = newId();
    await actors().ask('probe', id, { type: 'remind', key: 'sla', delayMs: 400 });
    await actors().ask('probe', id, { type: 'remind', key: 'sla', delayMs: 300 });
    await actors().ask('probe', id, { type: 'remind', key: 'gone', delayMs: 300 });
    await actors().ask('probe', id, { type: 'cancelReminder', key: 'gone' });
    await sleep(1_200);
    assert.deepEqual(await actors().ask('probe', id, { type: 'remindedKeys' }), ['sla']);
  });

  it('stops its actors when the others remove it from the cluster, rejoins, and serves again', async () => {
    const id = newId();
    await actors().ask('probe', id, { type: 'increment' });
    assert.ok(actors().activeActors() > 0);
    await server().ctx.redis!.zrem(`${server().ctx.config.redisPrefix}members`, actors().member);
    const until = Date.now() + 5_000;
    while (actors().activeActors() > 0 && Date.now() < until) await sleep(50);
    assert.equal(actors().activeActors(), 0, 'every actor stopped');
    assert.equal((await actors().ask('probe', id, { type: 'increment' })).turn, 2, 'served again after rejoining, state from Postgres');
    const ready = await get('/readyz');
    assert.equal(ready.status, 200);
    assert.equal((ready.body as { checks: Record<string, string> }).checks.cluster, 'ok');
  });
});
