import { strict as assert } from 'node:assert';
import { desiredOwner, SHARD_COUNT, shardOf } from '../../src/actors/cluster/shards';

const shards = Array.from({ length: SHARD_COUNT }, (_, i) => i);
const ownersOf = (nodes: string[]) => shards.map((shard) => desiredOwner(shard, nodes));

describe('shards and placement', () => {
  it('maps an actor to a stable shard in range, spread evenly', () => {
    assert.equal(shardOf('conversation', 'abc'), shardOf('conversation', 'abc'));
    assert.notEqual(shardOf('conversation', 'abc'), shardOf('visitor', 'abc'));
    const counts = new Array<number>(SHARD_COUNT).fill(0);
    for (let i = 0; i < 102_400; i++) counts[shardOf('conversation', `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)]!++;
    assert.ok(Math.min(...counts) > 50 && Math.max(...counts) < 160, `per-shard counts ${Math.min(...counts)}..${Math.max(...counts)} (mean 100)`);
  });

  it('gives every node the same owner whatever the member order, and none without members', () => {
    assert.deepEqual(ownersOf(['a', 'b', 'c']), ownersOf(['c', 'a', 'b']));
    assert.equal(desiredOwner(7, []), undefined);
  });

  it('balances shards across nodes', () => {
    const nodes = ['node-1:1', 'node-2:1', 'node-3:1', 'node-4:1'];
    const owners = ownersOf(nodes);
    for (const node of nodes) {
      const share = owners.filter((o) => o === node).length;
      assert.ok(share > 200 && share < 320, `${node} owns ${share} of 1024`);
    }
  });

  it('moves only the leaving node\'s shards when it leaves, and only to the new node when one joins', () => {
    const before = ownersOf(['a:1', 'b:1', 'c:1']);
    const afterLeave = ownersOf(['a:1', 'c:1']);
    shards.forEach((shard) => {
      if (before[shard] !== 'b:1') assert.equal(afterLeave[shard], before[shard], `shard ${shard} moved needlessly`);
    });
    const afterJoin = ownersOf(['a:1', 'b:1', 'c:1', 'd:1']);
    const moved = shards.filter((shard) => afterJoin[shard] !== before[shard]);
    assert.ok(moved.every((shard) => afterJoin[shard] === 'd:1'));
    assert.ok(moved.length > 180 && moved.length < 340, `${moved.length} shards moved to the new node`);
  });
});
