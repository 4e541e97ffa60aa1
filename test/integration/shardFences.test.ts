import { strict as assert } from 'node:assert';
import { Conversation } from '../../src/models';
import { ShardFences, StaleEpochError } from '../../src/actors/cluster/fences';
import { server } from '../support/hooks';
import * as make from '../support/factories';

describe('shard fencing (real Postgres)', () => {
  const fences = () => new ShardFences(server().ctx.db.sequelize);
  let shard = 900;
  beforeEach(() => {
    shard += 1; // each test its own shard row
  });

  it('bumps the epoch on every acquisition and records the owner', async () => {
    assert.equal(await fences().bump(shard, 'a:1'), 1);
    assert.equal(await fences().bump(shard, 'b:1'), 2);
    const [rows] = await server().ctx.db.sequelize.query(`SELECT epoch, owner FROM shard_fences WHERE shard = ${shard}`);
    assert.deepEqual(rows, [{ epoch: 2, owner: 'b:1' }]);
  });

  it('rejects a stale owner\'s write inside its transaction, so nothing from it lands', async () => {
    const { bot } = await make.v1Tenant();
    const conversation = await make.conversation(bot);
    const staleEpoch = await fences().bump(shard, 'a:1');
    await fences().bump(shard, 'b:1'); // b took over while a was paused
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

  it('holds off a takeover until an in-flight write under the current epoch commits', async () => {
    const epoch = await fences().bump(shard, 'a:1');
    const sequelize = server().ctx.db.sequelize;
    const order: string[] = [];
    let bumped: Promise<number> | undefined;
    await sequelize.transaction(async (transaction) => {
      await fences().assertCurrent(shard, epoch, transaction);
      bumped = fences().bump(shard, 'b:1').then((e) => (order.push('bump'), e));
      await new Promise((r) => setTimeout(r, 150));
      order.push('commit');
    });
    assert.equal(await bumped, epoch + 1);
    assert.deepEqual(order, ['commit', 'bump']);
  });
});
