import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { RETRY_DELAYS_MS, MAX_ATTEMPTS } from '../../src/domain/webhooks/schedule';
import { Chatbot, Webhook } from '../../src/models';
import { eventually } from '../support/eventually';
import { fakeLlm, server } from '../support/hooks';
import { get } from '../support/http';
import { WebhookReceiver } from '../support/webhookReceiver';
import { registerHook, startWebhookWorker, v1Send, webhookTenant } from '../support/webhooks';

const db = () => server().ctx.db.sequelize;

interface DeliveryState {
  seq: number;
  status: string;
  attempts: number;
  waitMs: number | null;
  /** Claimed by a sender right now (the attempt is in flight). */
  inFlight: boolean;
}

/** The webhook's deliveries in seq order, with how far ahead each one's next attempt is. */
async function deliveries(webhookId: number): Promise<DeliveryState[]> {
  const rows = await db().query<{ seq: string; status: string; attempts: number; wait_ms: number | null; in_flight: boolean }>(
    `SELECT seq, status, attempts, EXTRACT(EPOCH FROM (next_attempt_at - now())) * 1000 AS wait_ms, leased_until IS NOT NULL AS in_flight
     FROM webhook_deliveries WHERE webhook_id = :webhookId ORDER BY seq`,
    { type: QueryTypes.SELECT, replacements: { webhookId } },
  );
  return rows.map((row) => ({ seq: Number(row.seq), status: row.status, attempts: row.attempts, waitMs: row.wait_ms === null ? null : Number(row.wait_ms), inFlight: row.in_flight }));
}

/** Moves the webhook's scheduled retries to now: what the passing of time would do, without waiting for it. */
const retryNow = (webhookId: number) =>
  db().query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE webhook_id = :webhookId AND status = 'failed'`, { replacements: { webhookId } });

describe('webhooks: delivery', function () {
  this.timeout(60_000);
  let receiver: WebhookReceiver;
  let worker: { close(): Promise<void> };

  before(async () => {
    receiver = await WebhookReceiver.start();
    worker = await startWebhookWorker();
  });
  after(async () => {
    await worker?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    fakeLlm().reset();
    fakeLlm().script({ reply: 'We open at nine.' });
    receiver.answer(200);
  });

  it('delivers every event of an api conversation, signed, in seq order, an agent reply included; the catch-up lists the same bodies', async () => {
    const t = await webhookTenant();
    const everything = await registerHook(t, receiver, 'all-1', ['conversation.created', 'conversation.updated', 'message.created', 'lead.created']);
    await registerHook(t, receiver, 'updates-1', ['conversation.updated']);
    const conversation = await v1Send(t, 'When do you open?', 'crm-1');
    await server().actors.ask('conversation', conversation, { type: 'takeover', userId: t.owner.id });
    await server().actors.ask('conversation', conversation, { type: 'agentReply', userId: t.owner.id, text: 'Hello, Ana here.' });
    await server().actors.ask('conversation', conversation, { type: 'resolve', userId: t.owner.id });

    const got = await eventually(() => receiver.to('all-1'), (list) => list.length >= 6);
    assert.deepEqual(
      got.map((r) => [r.type, r.body.data.message?.role ?? r.body.data.conversation?.status]),
      [
        ['conversation.created', 'bot'],
        ['message.created', 'visitor'],
        ['message.created', 'assistant'],
        ['conversation.updated', 'agent'],
        ['message.created', 'agent'],
        ['conversation.updated', 'closed'],
      ],
    );
    assert.ok(got.every((r) => r.verified), 'every signature verifies with the secret');
    assert.deepEqual(got.map((r) => r.seq), [...got.map((r) => r.seq)].sort((a, b) => a - b), 'in seq order');
    assert.equal(new Set(got.map((r) => r.seq)).size, got.length);
    const agentLine = got[4]!;
    assert.equal(agentLine.body.data.message.content, 'Hello, Ana here.');
    assert.equal(agentLine.body.data.message.author_user_id, t.owner.id);
    for (const r of got) {
      assert.equal(r.headers['parley-event-id'], r.id);
      assert.equal(r.headers['parley-event-type'], r.type);
      assert.match(r.id, /^evt_[0-9a-f-]{36}$/);
      assert.equal(r.body.workspace_id, t.company.id);
      assert.equal(r.body.conversation_id, conversation);
      assert.match(String(r.headers['parley-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    }
    assert.deepEqual(got[0]!.body.data.conversation, {
      ...got[0]!.body.data.conversation,
      id: conversation,
      chatbot: t.bot.publicKey,
      channel: 'api',
      handoff_state: 'bot_active',
      assigned_user_id: null,
    });
    assert.deepEqual(got[3]!.body.data.conversation.assigned_user_id, t.owner.id);

    // A webhook hears only what it subscribed to.
    const updates = await eventually(() => receiver.to('updates-1'), (list) => list.length >= 2);
    assert.deepEqual(updates.map((r) => [r.type, r.id]), [got[3]!, got[5]!].map((r) => [r.type, r.id]));

    // The catch-up endpoint lists the very bodies that were delivered.
    const caughtUp = await get(`/api/v1/conversations/${conversation}/events`, t.api);
    assert.equal(caughtUp.status, 200);
    assert.deepEqual(caughtUp.body, { data: got.map((r) => r.body), next_after_seq: null });

    // The log shows them delivered.
    const log = await get(`/api/portal/webhooks/${everything.id}/deliveries`, t.portal);
    assert.equal(log.body.data.length, 6);
    assert.ok(log.body.data.every((d: { status: string; attempts: number; response_status: number }) => d.status === 'delivered' && d.attempts === 1 && d.response_status === 200));
  });

  it('sends lead.created the first time a lead is saved', async () => {
    const t = await webhookTenant();
    await Chatbot.update({ branding: { ...t.bot.branding, auto_actions: true } }, { where: { id: t.bot.id } });
    await registerHook(t, receiver, 'lead-1', ['lead.created']);
    const conversation = await v1Send(t, 'Write to me at lena@example.com please', 'crm-lead');
    await v1Send(t, 'Or lena.park@example.com', 'crm-lead', conversation);
    const got = await eventually(() => receiver.to('lead-1'), (list) => list.length >= 1);
    assert.equal(got.length, 1);
    assert.equal(got[0]!.body.data.lead.email, 'lena@example.com');
    assert.equal(got[0]!.body.data.lead.status, 'new');
    assert.ok(got[0]!.verified);
  });

  it('retries on the schedule, holds later events of the conversation back meanwhile, gives up after the last attempt, then goes on in order', async () => {
    const t = await webhookTenant();
    const hook = await registerHook(t, receiver, 'retry-1', ['message.created']);
    receiver.answer((r) => (r.headers['x-hook'] === 'retry-1' ? 500 : 200));
    const conversation = await v1Send(t, 'First', 'crm-retry');
    await v1Send(t, 'Second', 'crm-retry', conversation);

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const state = await eventually(() => deliveries(hook.id), (rows) => rows[0]!.attempts === attempt && !rows[0]!.inFlight);
      const [head, ...rest] = state;
      if (attempt < MAX_ATTEMPTS) {
        assert.equal(head!.status, 'failed');
        // The wait after attempt N is the Nth of the schedule (give or take the time the query took).
        const expected = RETRY_DELAYS_MS[attempt - 1]!;
        assert.ok(head!.waitMs! > expected - 5_000 && head!.waitMs! <= expected, `attempt ${attempt}: waits ${head!.waitMs} ms, not ${expected}`);
      } else {
        assert.deepEqual([head!.status, head!.waitMs], ['given_up', null]);
      }
      // Nothing behind it was attempted: order per conversation holds while it fails.
      assert.ok(rest.every((row) => row.attempts === 0 && row.status === 'pending' && !row.inFlight), JSON.stringify(rest));
      if (attempt < MAX_ATTEMPTS) await retryNow(hook.id);
    }
    assert.equal(receiver.to('retry-1').length, MAX_ATTEMPTS, 'one request per attempt, all of the first event');
    assert.equal(new Set(receiver.to('retry-1').map((r) => r.id)).size, 1);

    receiver.answer(200);
    const after = await eventually(() => deliveries(hook.id), (rows) => rows.slice(1).every((row) => row.status === 'delivered'));
    assert.deepEqual(after.map((row) => row.status), ['given_up', 'delivered', 'delivered', 'delivered']);
    const accepted = receiver.to('retry-1').filter((r) => r.answered === 200);
    assert.deepEqual(accepted.map((r) => r.seq), after.slice(1).map((row) => row.seq));
    const log = await get(`/api/portal/webhooks/${hook.id}/deliveries?limit=10`, t.portal);
    const givenUp = log.body.data.find((d: { status: string }) => d.status === 'given_up');
    assert.deepEqual([givenUp.attempts, givenUp.response_status, givenUp.error, givenUp.next_attempt_at], [MAX_ATTEMPTS, 500, 'answered 500', null]);
  });

  it('keeps conversations apart: one failing conversation does not hold another back', async () => {
    const t = await webhookTenant();
    await registerHook(t, receiver, 'apart-1', ['conversation.created']);
    let first = true;
    receiver.answer((r) => {
      if (r.headers['x-hook'] !== 'apart-1' || !first) return 200;
      first = false;
      return 503;
    });
    const a = await v1Send(t, 'One', 'crm-a');
    const b = await v1Send(t, 'Two', 'crm-b');
    const got = await eventually(() => receiver.to('apart-1').filter((r) => r.answered === 200), (list) => list.some((r) => r.conversationId === b));
    assert.ok(got.some((r) => r.conversationId === b));
    assert.ok(!got.some((r) => r.conversationId === a), 'the failed one waits for its retry');
  });

  it('times a delivery out after the limit, counted as a failed attempt', async () => {
    const t = await webhookTenant();
    const hook = await registerHook(t, receiver, 'slow-1', ['conversation.created']);
    receiver.answer((r) => (r.headers['x-hook'] === 'slow-1' ? 'hang' : 200));
    await v1Send(t, 'Anyone?', 'crm-slow');
    const [row] = await eventually(() => deliveries(hook.id), (rows) => rows[0]?.status === 'failed', 20_000);
    assert.equal(row!.status, 'failed');
    const log = await get(`/api/portal/webhooks/${hook.id}/deliveries`, t.portal);
    assert.deepEqual([log.body.data[0].response_status, log.body.data[0].error], [null, 'timed out after 10000 ms']);
  });

  it('sets a webhook inactive once it has failed for three days, and a success ends the count', async () => {
    const t = await webhookTenant();
    const hook = await registerHook(t, receiver, 'dying-1', ['conversation.created', 'message.created']);
    receiver.answer((r) => (r.headers['x-hook'] === 'dying-1' ? 500 : 200));
    const conversation = await v1Send(t, 'Hello', 'crm-dying');
    await eventually(() => Webhook.findByPk(hook.id), (row) => row?.failingSince != null);
    assert.equal((await Webhook.findByPk(hook.id))!.active, true, 'failing, but not for three days');

    // Three days and a minute of failure, as far as the webhook knows.
    await db().query(`UPDATE webhooks SET failing_since = now() - interval '3 days 1 minute' WHERE id = :id`, { replacements: { id: hook.id } });
    await retryNow(hook.id);
    const dead = await eventually(() => Webhook.findByPk(hook.id), (row) => row?.active === false);
    assert.equal(dead!.active, false);
    const listed = await get('/api/portal/webhooks', t.portal);
    assert.equal(listed.body.data.find((w: { id: number }) => w.id === hook.id).active, false);
    const owed = await deliveries(hook.id);
    assert.ok(owed.length >= 2 && owed.every((row) => row.status === 'given_up' && row.waitMs === null), `what it still owed is given up: ${JSON.stringify(owed)}`);
    const before = owed.length;
    await v1Send(t, 'Still there?', 'crm-dying', conversation);
    assert.equal((await deliveries(hook.id)).length, before, 'an inactive webhook gets no new deliveries');

    // Another webhook that recovers before three days are over stays active, and its count restarts.
    const other = await registerHook(t, receiver, 'recovers-1', ['conversation.created']);
    receiver.answer((r) => (r.headers['x-hook'] === 'recovers-1' && r.body?.conversation_id ? 500 : 200));
    await v1Send(t, 'Hi again', 'crm-recovers');
    await eventually(() => Webhook.findByPk(other.id), (row) => row?.failingSince != null);
    receiver.answer(200);
    await retryNow(other.id);
    const recovered = await eventually(() => Webhook.findByPk(other.id), (row) => row?.failingSince === null);
    assert.deepEqual([recovered!.active, recovered!.failingSince], [true, null]);
  });

  it('stores a change and its event together or neither: an outbox insert that fails rolls the reply back', async () => {
    const t = await webhookTenant();
    await registerHook(t, receiver, 'atomic-1', ['message.created']);
    const conversation = await v1Send(t, 'Hi', 'crm-atomic');
    await server().actors.ask('conversation', conversation, { type: 'takeover', userId: t.owner.id });
    const messages = async () =>
      (await db().query<{ content: string }>('SELECT m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.public_id = :conversation ORDER BY m.id', { type: QueryTypes.SELECT, replacements: { conversation } })).map((m) => m.content);
    const events = async () => (await get(`/api/v1/conversations/${conversation}/events?limit=500`, t.api)).body.data.map((e: { type: string; data: { message?: { content: string } } }) => e.data.message?.content ?? e.type);
    const [messagesBefore, eventsBefore] = [await messages(), await events()];
    // The event's insert fails inside the reply's transaction (as a full disk or a lost connection would).
    await db().query(`
      CREATE OR REPLACE FUNCTION refuse_exploding_event() RETURNS trigger AS $$
      BEGIN IF NEW.data::text LIKE '%explode%' THEN RAISE EXCEPTION 'outbox refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_exploding_event BEFORE INSERT ON integration_events FOR EACH ROW EXECUTE FUNCTION refuse_exploding_event();`);
    try {
      await assert.rejects(server().actors.ask('conversation', conversation, { type: 'agentReply', userId: t.owner.id, text: 'explode' }));
    } finally {
      await db().query('DROP TRIGGER refuse_exploding_event ON integration_events; DROP FUNCTION refuse_exploding_event();');
    }
    assert.deepEqual(await messages(), messagesBefore, 'the reply whose event could not be stored was not stored either');
    assert.deepEqual(await events(), eventsBefore);
    // The conversation goes on, its seq unbroken by the failed write.
    await server().actors.ask('conversation', conversation, { type: 'agentReply', userId: t.owner.id, text: 'Take two' });
    assert.deepEqual(await messages(), [...messagesBefore, 'Take two']);
    const got = await eventually(() => receiver.to('atomic-1'), (list) => list.some((r) => r.body.data.message.content === 'Take two'));
    assert.ok(!got.some((r) => r.body.data.message.content === 'explode'));
  });
});
