import { strict as assert } from 'node:assert';
import { WatchPoll } from '../../src/realtime/watchPoll';
import { eventually } from '../support/eventually';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('WatchPoll: message.delta only for watched conversations, one read per period for the node', () => {
  const polls: WatchPoll[] = [];
  afterEach(() => polls.splice(0).forEach((poll) => poll.close()));
  /** A poll over `watched`, recording every read's ids. */
  const pollOf = (watched: Set<string>, periodMs: number) => {
    const reads: string[][] = [];
    const poll = new WatchPoll(async (ids) => {
      reads.push([...ids]);
      return ids.map((id) => watched.has(id));
    }, periodMs);
    polls.push(poll);
    return { poll, reads };
  };

  it('is open until the first read answers, then follows the reads: a watcher arriving mid-answer is noticed', async () => {
    const watched = new Set<string>();
    const { poll, reads } = pollOf(watched, 50);
    const follow = poll.follow('c1');
    assert.equal(follow.open, true, 'before the first answer: publish');
    await eventually(() => follow.open, (open) => !open, 2_000);
    watched.add('c1');
    await eventually(() => follow.open, (open) => open, 2_000);
    watched.delete('c1');
    await eventually(() => follow.open, (open) => !open, 2_000);
    assert.ok(reads.length >= 3 && reads.length < 100, `re-read once a period, not per delta (${reads.length} reads)`);
    follow.stop();
  });

  it('reads every followed conversation in one read per period, and the starts of one turn in one read', async () => {
    const watched = new Set(['b']);
    const { poll, reads } = pollOf(watched, 100);
    const follows = ['a', 'b', 'c'].map((id) => poll.follow(id));
    await turn();
    assert.deepEqual(reads, [['a', 'b', 'c']], 'the three starts of one turn: one read');
    await eventually(() => reads.length, (count) => count >= 3, 2_000);
    assert.ok(reads.slice(1).every((ids) => ids.length === 3), JSON.stringify(reads));
    assert.deepEqual(follows.map((follow) => follow.open), [false, true, false]);
    for (const follow of follows) follow.stop();
  });

  it('keeps a conversation while any of its answers streams, and stops reading once none does', async () => {
    const { poll, reads } = pollOf(new Set(), 20);
    const first = poll.follow('x');
    const second = poll.follow('x');
    await turn();
    assert.deepEqual(reads, [['x']], 'followed twice, read once');
    first.stop();
    first.stop(); // idempotent: the second answer still holds it
    await eventually(() => reads.length, (count) => count >= 3, 2_000);
    assert.deepEqual(reads.at(-1), ['x']);
    second.stop();
    await new Promise((resolve) => setTimeout(resolve, 60));
    const after = reads.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(reads.length, after, 'nothing followed: no more reads');
  });

  it('stays open when a read fails', async () => {
    const poll = new WatchPoll(() => Promise.reject(new Error('redis down')), 10);
    polls.push(poll);
    const follow = poll.follow('y');
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(follow.open, true);
    follow.stop();
  });
});
