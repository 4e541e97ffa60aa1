import { strict as assert } from 'node:assert';
import { Redis } from 'ioredis';
import { Deployment } from '../support/cluster/deployment';
import { openIdleShop } from '../support/cluster/idleShop';
import { REDIS_URL } from '../support/env';
import { eventually } from '../support/eventually';
import { fakeLlm } from '../support/hooks';
import { postStream } from '../support/sse';

// Nine seconds of quiet: two answers fit well inside it, even on a loaded machine, and the close is waited for.
const IDLE_MINUTES = '0.15';
const QUIET_MS = 9_000;
const SECOND_ANSWER_AFTER_MS = 2_500;

/**
 * The idle reminder is armed once per quiet period (src/actors/conversation/idleClose.ts): a later
 * answer arms nothing while the reminder is still to come, and the reminder's check re-arms for the
 * last answer's quiet time. What must hold: the conversation closes, resolved by the AI, only once
 * the quiet time after its LAST answer passed, on the owner's node or after a failover.
 */
describe('the AI idle close counts from the last answer', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let base: string;
  let redis: Redis;

  before(async () => {
    deployment = await Deployment.create();
    base = await openIdleShop(deployment, ['last-a', 'last-b'], IDLE_MINUTES, 'Later Shop', '0002');
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    redis?.disconnect();
    await deployment?.destroy();
  });

  const ask = async (visitor: string, ip: string, conversationId?: string): Promise<string> => {
    fakeLlm().script({ reply: 'Happy to help.' });
    const body = { visitor_id: visitor, message: 'Do you ship abroad?', ...(conversationId && { conversation_id: conversationId }) };
    const owner = conversationId ? await deployment.ownerOf('conversation', conversationId) : deployment.live()[0]!;
    const answered = await postStream(`${base}/stream`, body, { 'X-Forwarded-For': ip }, owner.url);
    assert.equal(answered.events.at(-1)?.event, 'done', JSON.stringify(answered.events));
    return answered.events[0]!.data.conversation_id as string;
  };

  const conversationRow = async (publicId: string) =>
    (await deployment.query<{ id: string; status: string; resolution: string | null; resolved_by_ai: boolean; resolved_at: Date | null }>(
      'SELECT id, status, resolution, resolved_by_ai, resolved_at FROM conversations WHERE public_id = $1',
      [publicId],
    ))[0]!;

  const answers = async (conversationId: string) =>
    deployment.query<{ id: string; created_at: Date }>("SELECT id, created_at FROM messages WHERE conversation_id = $1 AND role = 'assistant' ORDER BY id", [conversationId]);

  /** What the conversation's idle reminder (the first key) says it checks: the answer it was armed for. */
  const armedFor = async (publicId: string): Promise<number | undefined> => {
    const data = await redis.hget(`${deployment.redisPrefix}bull:reminders:conversation|${publicId}|idle`, 'data');
    return data ? (JSON.parse(data) as { message: { answerId: number } }).message.answerId : undefined;
  };

  async function twoAnswers(visitor: string, ip: string): Promise<{ publicId: string; rowId: string; last: { id: string; created_at: Date } }> {
    const publicId = await ask(visitor, ip);
    // Far enough apart that a close counted from the first answer would come visibly early.
    await new Promise((resolve) => setTimeout(resolve, SECOND_ANSWER_AFTER_MS));
    await ask(visitor, ip, publicId);
    const { id: rowId } = await conversationRow(publicId);
    const [first, last] = await answers(rowId);
    assert.ok(first && last, 'two answers stored');
    assert.ok(last.created_at.getTime() - first.created_at.getTime() < QUIET_MS - 1_500, 'the second answer came well within the first one\'s quiet time');
    return { publicId, rowId, last };
  }

  async function closedAfterLastAnswer(publicId: string, rowId: string, last: { created_at: Date }): Promise<void> {
    const closed = await eventually(() => conversationRow(publicId), (row) => row.status === 'closed', 60_000);
    assert.deepEqual([closed.resolution, closed.resolved_by_ai], ['resolved', true]);
    assert.ok(closed.resolved_at!.getTime() >= last.created_at.getTime() + QUIET_MS, `closed at ${closed.resolved_at!.toISOString()}, before the quiet time after the last answer (${last.created_at.toISOString()})`);
    const events = await deployment.query<{ type: string; source: string }>('SELECT type, source FROM conversation_events WHERE conversation_id = $1 ORDER BY id', [rowId]);
    assert.deepEqual(events.filter((event) => event.type === 'resolved'), [{ type: 'resolved', source: 'ai' }]);
  }

  it('arms the reminder once, and closes only after the quiet time after the last answer', async () => {
    const { publicId, rowId, last } = await twoAnswers('visitor-twice', '10.8.0.1');
    const [first] = await answers(rowId);
    assert.equal(await armedFor(publicId), Number(first!.id), 'the second answer left the armed reminder alone');
    await closedAfterLastAnswer(publicId, rowId, last);
  });

  it('still closes after the last answer when the owner dies before the reminder is due', async () => {
    const { publicId, rowId, last } = await twoAnswers('visitor-failover', '10.8.0.2');
    await (await deployment.ownerOf('conversation', publicId)).kill('SIGKILL');
    assert.equal((await conversationRow(publicId)).status, 'bot', 'still open when its owner died');
    await closedAfterLastAnswer(publicId, rowId, last);
  });
});
