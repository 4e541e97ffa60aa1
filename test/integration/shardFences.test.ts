import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { Conversation } from '../../src/models';
import { eventually } from '../support/eventually';
import { fencedStatement, ShardFences, StaleEpochError } from '../../src/actors/cluster/fences';
import { server } from '../support/hooks';
import * as make from '../support/factories';

describe('shard fencing (real Postgres)', () => {
  const fences = () => new ShardFences(server().ctx.db.sequelize);
  // Rows past SHARD_COUNT: the in-process node's own shard manager never bumps them.
  let shard = 5000;
  beforeEach(() => {
    shard += 10; // each test its own shard rows
  });
  const bump = async (owner: string, s = shard) => (await fences().bump([s], owner)).get(s)!;

  it('bumps the epoch on every acquisition (many shards in one statement) and records the owner', async () => {
    assert.deepEqual(await fences().bump([shard + 1, shard], 'a:1'), new Map([[shard, 1], [shard + 1, 1]]));
    assert.equal(await bump('b:1'), 2);
    const [rows] = await server().ctx.db.sequelize.query(`SELECT shard, epoch, owner FROM shard_fences WHERE shard IN (${shard}, ${shard + 1}) ORDER BY shard`);
    assert.deepEqual(rows, [{ shard, epoch: 2, owner: 'b:1' }, { shard: shard + 1, epoch: 1, owner: 'a:1' }]);
  });

  it('rejects a stale owner\'s write inside its transaction, so nothing from it lands', async () => {
    const { bot } = await make.v1Tenant();
    const conversation = await make.conversation(bot);
    const staleEpoch = await bump('a:1');
    await bump('b:1'); // b took over while a was paused
    const sequelize = server().ctx.db.sequelize;
    await assert.rejects(
      sequelize.transaction(async (transaction) => {
        await Conversation.update({ status: 'closed' }, { where: { id: conversation.id }, transaction });
        await fences().assertCurrent(shard, staleEpoch, transaction);
      }),
      (error: unknown) => error instanceof StaleEpochError && error.current === staleEpoch + 1,
    );
    await conversation.reload();
    assert.equal(conversation.status, 'bot', 'the stale write was rolled back');
  });

  it('skips, rather than waits for, a shard whose fence row an in-flight write still holds', async () => {
    const epoch = await bump('a:1');
    await bump('a:1', shard + 1);
    const sequelize = server().ctx.db.sequelize;
    let bumped: Map<number, number> | undefined;
    await sequelize.transaction(async (transaction) => {
      await fences().assertCurrent(shard, epoch, transaction);
      bumped = await fences().bump([shard, shard + 1], 'b:1'); // returns while the write is still open
    });
    assert.deepEqual(bumped, new Map([[shard + 1, 2]]));
    assert.equal(await bump('b:1'), epoch + 1, 'taken once the write committed');
  });

  it('commits a fenced write under the current epoch and refuses one under a stale epoch', async () => {
    const epoch = await bump('a:1');
    assert.equal(await fences().write(shard, epoch, async () => 'landed'), 'landed');
    await bump('b:1');
    await assert.rejects(fences().write(shard, epoch, async () => 'landed'), StaleEpochError);
  });

  it('lands a one-statement fenced write under the current epoch, and under a stale one writes nothing and throws', async () => {
    const { bot } = await make.v1Tenant();
    const conversation = await make.conversation(bot);
    const sequelize = server().ctx.db.sequelize;
    const close = (current: string) => ({
      ctes: `closed AS (UPDATE conversations SET status = 'closed' WHERE id = $3 AND EXISTS (SELECT 1 FROM ${current}) RETURNING id)`,
      columns: '(SELECT count(*) FROM closed)::int AS closed',
      bind: [conversation.id],
    });
    const stale = await bump('a:1');
    const current = await bump('b:1'); // b took over while a was paused
    await assert.rejects(fencedStatement(sequelize, shard, stale, close), (error: unknown) => error instanceof StaleEpochError && error.current === current);
    await conversation.reload();
    assert.equal(conversation.status, 'bot', 'nothing of the stale statement landed');
    assert.deepEqual(await fencedStatement(sequelize, shard, current, close), { fence_epoch: current, closed: 1 });
    await conversation.reload();
    assert.equal(conversation.status, 'closed');
  });

  it('holds the fence row for a one-statement write until it commits: a takeover skips it meanwhile', async () => {
    const epoch = await bump('a:1');
    const sequelize = server().ctx.db.sequelize;
    // The statement sleeps after reading the fence, as a slow write would; the bump meanwhile must skip the shard.
    const slow = fencedStatement(sequelize, shard, epoch, (current) => ({ ctes: `slept AS (SELECT pg_sleep(1.5) FROM ${current})`, columns: '(SELECT count(*) FROM slept)::int AS slept', bind: [] }));
    const sleeping = () => sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%fence_current%'`, { type: QueryTypes.SELECT });
    await eventually(sleeping, ([row]) => row!.n > 0); // the statement holds the fence row now
    assert.equal((await fences().bump([shard], 'b:1')).get(shard), undefined, 'skipped while held');
    assert.deepEqual(await slow, { fence_epoch: epoch, slept: 1 });
    assert.equal(await bump('b:1'), epoch + 1);
  });
});
