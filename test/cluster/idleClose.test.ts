import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import { openIdleShop } from '../support/cluster/idleShop';
import { eventually } from '../support/eventually';
import { fakeLlm } from '../support/hooks';
import { cliOk } from '../support/processes';
import { postStream } from '../support/sse';

// Two seconds of quiet: long enough for the test to kill the owner first, short enough to wait for.
const IDLE_MINUTES = '0.035';

describe('the AI idle close: a reminder that survives the owner being killed', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let base: string;

  before(async () => {
    deployment = await Deployment.create();
    base = await openIdleShop(deployment, ['idle-a', 'idle-b'], IDLE_MINUTES, 'Quiet Shop', '0001');
  });
  after(() => deployment?.destroy());

  const conversationRow = async (publicId: string) =>
    (await deployment.query<{ status: string; resolution: string | null; resolved_by_ai: boolean; id: string }>(
      'SELECT id, status, resolution, resolved_by_ai FROM conversations WHERE public_id = $1',
      [publicId],
    ))[0]!;

  it('closes a conversation the AI answered, resolved by the AI, on the node that took it over', async () => {
    fakeLlm().script({ reply: 'We ship worldwide.' });
    const answered = await postStream(`${base}/stream`, { visitor_id: 'visitor-quiet', message: 'Do you ship abroad?' }, { 'X-Forwarded-For': '10.7.0.1' }, deployment.live()[0]!.url);
    assert.equal(answered.events.at(-1)?.event, 'done', JSON.stringify(answered.events));
    const conversationId = answered.events[0]!.data.conversation_id as string;
    const owner = await deployment.ownerOf('conversation', conversationId);
    await owner.kill('SIGKILL');
    assert.equal((await conversationRow(conversationId)).status, 'bot', 'still open when its owner died');

    const closed = await eventually(() => conversationRow(conversationId), (row) => row.status === 'closed', 60_000);
    assert.deepEqual([closed.resolution, closed.resolved_by_ai], ['resolved', true]);
    const events = await deployment.query<{ type: string; source: string }>('SELECT type, source FROM conversation_events WHERE conversation_id = $1 ORDER BY id', [closed.id]);
    assert.deepEqual(events.filter((event) => event.type === 'resolved'), [{ type: 'resolved', source: 'ai' }]);
  });

  it('leaves alone a conversation a person took over after the AI answered', async () => {
    const survivor = deployment.live()[0]!;
    const open = async (visitor: string) => {
      fakeLlm().script({ reply: 'Hello!' });
      const answered = await postStream(`${base}/stream`, { visitor_id: visitor, message: 'Hi' }, { 'X-Forwarded-For': '10.7.0.2' }, survivor.url);
      assert.equal(answered.events.at(-1)?.event, 'done', JSON.stringify(answered.events));
      return answered.events[0]!.data.conversation_id as string;
    };
    // The held conversation's reminder is due first; the control's closing shows the quiet time has passed for both.
    const held = await open('visitor-held');
    const control = await open('visitor-control');
    const { company_id: companyId } = (await deployment.query<{ company_id: number }>('SELECT company_id FROM conversations WHERE public_id = $1', [held]))[0]!;
    const { user } = (await cliOk(['user', 'create', '--company', String(companyId), '--email', 'held@idle.test', '--password', 'password-123', '--name', 'Kim', '--role', 'agent'], deployment.env())) as { user: { id: number } };
    const takeover = await survivor.ask('conversation', held, { type: 'takeover', userId: user.id });
    assert.ok('value' in takeover, JSON.stringify(takeover));

    await eventually(() => conversationRow(control), (row) => row.status === 'closed', 60_000);
    const row = await conversationRow(held);
    assert.deepEqual([row.status, row.resolved_by_ai], ['agent', false]);
  });
});
