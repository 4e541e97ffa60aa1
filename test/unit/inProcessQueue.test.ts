import { strict as assert } from 'node:assert';
import { UnrecoverableError } from 'bullmq';
import pino from 'pino';
import { JOB_KINDS } from '../../src/boot/jobs';
import { InProcessJobQueue } from '../../src/jobs/inProcessQueue';
import { eventually } from '../support/eventually';

const logger = pino({ level: 'silent' });

describe('InProcessJobQueue (single-node mode)', () => {
  const policy = JOB_KINDS['index-source'].policy;
  const original = { ...policy };
  beforeEach(() => Object.assign(policy, { backoffMs: 5, attempts: 3 }));
  afterEach(() => Object.assign(policy, original));

  it('runs queued jobs once processors exist, and ignores a duplicate id while one waits or runs', async () => {
    const queue = new InProcessJobQueue(logger, JOB_KINDS);
    const seen: number[] = [];
    await queue.enqueue('index-source', { sourceId: 1 });
    await queue.enqueue('index-source', { sourceId: 1 });
    await queue.enqueue('index-source', { sourceId: 2 });
    queue.process({ 'index-source': async ({ sourceId }) => void seen.push(sourceId) });
    await eventually(() => seen.length, (n) => n === 2);
    await queue.enqueue('index-source', { sourceId: 1 }); // finished: the same work may be asked for again
    await eventually(() => seen.length, (n) => n === 3);
    await queue.close();
    assert.deepEqual(seen.sort(), [1, 1, 2]);
  });

  it('retries with backoff, flags the final attempt, and stops at UnrecoverableError', async () => {
    const queue = new InProcessJobQueue(logger, JOB_KINDS);
    const attempts: Array<[number, number, boolean]> = [];
    queue.process({
      'index-source': async ({ sourceId }, { attempt, finalAttempt }) => {
        attempts.push([sourceId, attempt, finalAttempt]);
        if (sourceId === 1) throw new Error('temporary');
        if (sourceId === 2) throw new UnrecoverableError('permanent');
      },
    });
    await queue.enqueue('index-source', { sourceId: 1 });
    await queue.enqueue('index-source', { sourceId: 2 });
    await eventually(() => attempts.filter(([id]) => id === 1).length, (n) => n === 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await queue.close();
    assert.deepEqual(attempts.filter(([id]) => id === 1), [[1, 1, false], [1, 2, false], [1, 3, true]]);
    assert.deepEqual(attempts.filter(([id]) => id === 2), [[2, 1, false]]);
  });

  it('reports its depth by kind: waiting, running, and backing off before a retry', async () => {
    Object.assign(policy, { backoffMs: 60_000, concurrency: 2 });
    const queue = new InProcessJobQueue(logger, JOB_KINDS);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    queue.process({
      'index-source': async ({ sourceId }) => {
        if (sourceId === 1) throw new Error('temporary');
        await gate;
      },
    });
    for (const sourceId of [1, 2, 3, 4]) await queue.enqueue('index-source', { sourceId });
    const idle = { waiting: 0, active: 0, delayed: 0 };
    const busy = await eventually(() => queue.depth(), (depth) => depth['index-source'].delayed === 1 && depth['index-source'].active === 2);
    assert.deepEqual(busy, { 'index-source': { waiting: 1, active: 2, delayed: 1 }, 'push-fanout': idle, 'push-deliver': idle, 'webhook-deliver': idle });
    release();
    const drained = await eventually(() => queue.depth(), (depth) => depth['index-source'].active === 0);
    assert.deepEqual(drained['index-source'], { waiting: 0, active: 0, delayed: 1 });
    await queue.close();
  });

  it('runs at most the policy\'s concurrency at once and close() waits for running jobs', async () => {
    const queue = new InProcessJobQueue(logger, JOB_KINDS);
    let running = 0;
    let peak = 0;
    let finished = 0;
    queue.process({
      'index-source': async () => {
        peak = Math.max(peak, ++running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running -= 1;
        finished += 1;
      },
    });
    for (let id = 1; id <= 6; id += 1) await queue.enqueue('index-source', { sourceId: id });
    await eventually(() => finished, (n) => n >= 1);
    await queue.close();
    assert.equal(peak, policy.concurrency);
    assert.equal(running, 0);
  });
});
