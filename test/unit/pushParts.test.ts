import { strict as assert } from 'node:assert';
import pino from 'pino';
import { JOB_KINDS } from '../../src/boot/jobs';
import { resolvePreferences } from '../../src/domain/notifications/preferences';
import { ttlLeft } from '../../src/domain/push/delivery';
import type { PushEvent } from '../../src/domain/push/events';
import type { PushFanoutJob } from '../../src/domain/push/jobs';
import { notificationFor, truncate } from '../../src/domain/push/payload';
import { retryAfterMs } from '../../src/domain/push/retryAfterHeader';
import { memoryThrottle } from '../../src/domain/push/throttle';
import { InProcessJobQueue } from '../../src/jobs/inProcessQueue';
import { RetryAfter, retryDelayMs } from '../../src/jobs/retryAfter';

const logger = pino({ level: 'silent' });

const event = (overrides: Partial<PushEvent> = {}): PushEvent => ({
  event: 'visitor_message',
  key: 'visitor_message:c1:1',
  companyId: 1,
  chatbotId: 2,
  conversationId: '7d4f0c6e-2b1a-4c3d-9e8f-0a1b2c3d4e5f',
  assignedUserId: null,
  visitor: 'Lena Park',
  text: 'Hi',
  ...overrides,
});

describe('push parts', () => {
  describe('Retry-After', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    it('reads delay-seconds and HTTP dates; a past date is now; anything else is unknown', () => {
      assert.equal(retryAfterMs('120', now), 120_000);
      assert.equal(retryAfterMs(' 0 ', now), 0);
      assert.equal(retryAfterMs('Sat, 21 Nov 2026 10:00:30 GMT', now), 30_000);
      assert.equal(retryAfterMs('Sat, 21 Nov 2026 09:00:00 GMT', now), 0);
      assert.equal(retryAfterMs(['5', '9'], now), 5_000);
      for (const unreadable of [undefined, '', 'soon', '-5', '1.5']) assert.equal(retryAfterMs(unreadable, now), undefined, String(unreadable));
    });

    it('a RetryAfter error sets the next delay; other errors back off exponentially', () => {
      assert.equal(retryDelayMs(new RetryAfter(1_500, 'later'), 2_000, 4), 1_500);
      assert.deepEqual([1, 2, 3, 4].map((made) => retryDelayMs(new Error('x'), 2_000, made)), [2_000, 4_000, 8_000, 16_000]);
    });
  });

  it('the TTL left counts down from the event and never grows past it', () => {
    const raised = 1_000_000;
    assert.equal(ttlLeft('handoff_requested', raised, raised), 3_600);
    assert.equal(ttlLeft('handoff_requested', raised, raised + 1), 3_599);
    assert.equal(ttlLeft('visitor_arrived', raised, raised + 299_000), 1);
    assert.equal(ttlLeft('visitor_arrived', raised, raised + 300_000), 0);
    assert.equal(ttlLeft('visitor_arrived', raised, raised - 60_000), 300, 'a worker clock behind the raiser');
  });

  describe('payload', () => {
    const prefs = resolvePreferences(null);
    it('cuts at code points, never inside an emoji, and marks the cut', () => {
      assert.equal(truncate('short', 10), 'short');
      assert.equal(truncate('😀😀😀😀', 3), '😀😀…');
      assert.equal(truncate('ab   cdef', 5), 'ab…');
    });

    it('names someone even when the visitor has no label, and says something for an arrival without a page title', () => {
      const arrival = notificationFor(event({ event: 'visitor_arrived', conversationId: null, visitor: '  ', text: '' }), prefs, 'https://app.test');
      assert.deepEqual([arrival.title, arrival.body, arrival.url, arrival.tag], ['A visitor is on your site', 'Browsing now', 'https://app.test/inbox', 'parley-visitors']);
      const message = notificationFor(event({ text: 'line one\n\tline two' }), prefs, 'https://app.test');
      assert.equal(message.body, 'line one line two');
      assert.equal(message.url, 'https://app.test/inbox/conversations/7d4f0c6e-2b1a-4c3d-9e8f-0a1b2c3d4e5f');
    });
  });

  it('job ids carry no ":" and distinct keys never share an id', () => {
    const job = (key: string): PushFanoutJob => ({ ...event({ key }), raisedAt: 0 });
    const ids = ['a:b-c', 'a-b:c', 'a%3Ab-c'].map((key) => JOB_KINDS['push-fanout'].idOf(job(key)));
    assert.equal(new Set(ids).size, 3);
    for (const id of ids) assert.ok(!id.includes(':'), id);
    const deliveries = [
      JOB_KINDS['push-deliver'].idOf({ key: 'k:1', event: 'chat_started', companyId: 1, userId: 1, subscriptionId: 12, raisedAt: 0, notification: notificationFor(event(), resolvePreferences(null), '') }),
      JOB_KINDS['push-deliver'].idOf({ key: 'k:1', event: 'chat_started', companyId: 1, userId: 1, subscriptionId: 1, raisedAt: 0, notification: notificationFor(event(), resolvePreferences(null), '') }),
    ];
    assert.notEqual(deliveries[0], deliveries[1]);
  });

  it('the memory throttle gives a window to its first claimant, again to the same one, and frees it when the window ends', async () => {
    const throttle = memoryThrottle();
    assert.equal(await throttle.claim('c1:7', 'event-1', 80), true);
    assert.equal(await throttle.claim('c1:7', 'event-1', 80), true, 'the same event retried keeps its slot');
    assert.equal(await throttle.claim('c1:7', 'event-2', 80), false);
    assert.equal(await throttle.claim('c1:8', 'event-2', 80), true, 'another agent has their own window');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await throttle.claim('c1:7', 'event-3', 80), true);
  });

  describe('InProcessJobQueue and push jobs', () => {
    const policy = JOB_KINDS['push-fanout'].policy;
    const original = { ...policy };
    afterEach(() => Object.assign(policy, original));

    it('waits what a RetryAfter asks for instead of the backoff', async () => {
      Object.assign(policy, { backoffMs: 60_000, attempts: 3 });
      const queue = new InProcessJobQueue(logger, JOB_KINDS);
      const runs: number[] = [];
      queue.process({
        'push-fanout': async () => {
          runs.push(Date.now());
          if (runs.length === 1) throw new RetryAfter(150, 'later');
        },
      });
      await queue.enqueue('push-fanout', { ...event(), raisedAt: 0 });
      await queue.settled();
      await queue.close();
      assert.equal(runs.length, 2);
      assert.ok(runs[1]! - runs[0]! >= 140 && runs[1]! - runs[0]! < 5_000, `${runs[1]! - runs[0]!} ms`);
    });

    it('remembers finished ids for rememberDoneSeconds, then lets the same work run again', async () => {
      Object.assign(policy, { rememberDoneSeconds: 0.2 });
      const queue = new InProcessJobQueue(logger, JOB_KINDS);
      let runs = 0;
      queue.process({ 'push-fanout': async () => void (runs += 1) });
      const job = { ...event(), raisedAt: 0 };
      await queue.enqueue('push-fanout', job);
      await queue.settled();
      await queue.enqueue('push-fanout', job);
      await queue.settled();
      assert.equal(runs, 1);
      await new Promise((resolve) => setTimeout(resolve, 250));
      await queue.enqueue('push-fanout', job);
      await queue.settled();
      await queue.close();
      assert.equal(runs, 2);
    });

    it('a kind without a processor waits; the others run', async () => {
      const queue = new InProcessJobQueue(logger, JOB_KINDS);
      let ran = false;
      queue.process({ 'index-source': async () => void (ran = true) });
      await queue.enqueue('push-fanout', { ...event(), raisedAt: 0 });
      await queue.enqueue('index-source', { sourceId: 1 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(ran, true);
      await queue.close();
    });
  });
});
