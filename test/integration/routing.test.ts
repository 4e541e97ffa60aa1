import { strict as assert } from 'node:assert';
import { Op } from 'sequelize';
import { Company, Conversation, ConversationEvent, type Chatbot, type User } from '../../src/models';
import * as make from '../support/factories';
import { eventually } from '../support/eventually';
import { fakeLlm, server } from '../support/hooks';
import { ask, newVisitor } from '../support/widget';
import { get, request } from '../support/http';
import { freshIp } from '../support/portal';
import { connect, Inbox, subscribe, type ClientSocket } from '../support/sockets';

interface Agent {
  user: User;
  token: string;
  inbox?: Inbox;
}

/** Auto-assignment on the test server (docs/routing.md): the router, the conversation actors, the accept timer. */
describe('auto-assignment (routing mode auto)', function () {
  this.timeout(60_000);
  const sockets: ClientSocket[] = [];
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  async function workspace(routing: Record<string, unknown>) {
    const { company } = await make.workspace({ plan: 'pro' });
    await Company.update({ settings: { routing: { mode: 'auto', ...routing } } }, { where: { id: company.id } });
    return { company, bot: await make.chatbot(company) };
  }

  /** An agent with the inbox open (a socket connected, their own channel followed) once the router can see them. */
  async function agentOnline(company: Company, options: { socket?: boolean; wait?: boolean } = {}): Promise<Agent> {
    const user = await make.user(company, 'agent');
    const token = await make.token(user, 'agent');
    if (options.socket === false) return { user, token };
    const socket = await connect(server().url, { token });
    sockets.push(socket);
    const inbox = new Inbox(socket);
    const channel = `private-user.${user.id}`;
    const auth = await request('POST', '/api/agent/broadcasting/auth', { token, body: { socket_id: socket.id, channel_name: channel } });
    assert.deepEqual(await subscribe(socket, channel, auth.body.auth), { ok: true });
    if (options.wait === false) return { user, token, inbox };
    const state = await eventually(() => get('/api/agent/me/status', token), (reply) => reply.body.available === true);
    assert.equal(state.body.available, true, JSON.stringify(state.body));
    return { user, token, inbox };
  }

  async function waiting(bot: Chatbot) {
    const conversation = await make.conversation(bot, { messages: [['visitor', 'Can a person help?']] });
    return conversation;
  }

  const handoff = (bot: Chatbot, conversation: Conversation) =>
    request('POST', `/widget/${bot.publicKey}/handoff`, { body: { visitor_id: conversation.visitorKey, conversation_id: conversation.publicId }, headers: { 'X-Forwarded-For': freshIp() } });

  const holder = async (conversation: Conversation) => (await Conversation.findByPk(conversation.id))!.assignedUserId;
  const agentPost = (agent: Agent, conversation: Conversation, action: string, body?: unknown) =>
    request('POST', `/api/agent/conversations/${conversation.publicId}/${action}`, { token: agent.token, body });

  it('gives each waiting conversation to the agent with the fewest open ones, queues the rest in order, and freed seats take the next', async () => {
    const { company, bot } = await workspace({ capacity: 1 });
    const [ann, bob] = [await agentOnline(company), await agentOnline(company)];
    const [c1, c2, c3, c4] = [await waiting(bot), await waiting(bot), await waiting(bot), await waiting(bot)];

    const first = await handoff(bot, c1);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, { status: 'agent', handoff_state: 'human_connected', wait_remaining: null, queue_position: null });
    assert.equal(await holder(c1), ann.user.id, 'never assigned, lowest id first');
    // Bob holds none and Ann one: fewest open conversations wins.
    assert.equal((await handoff(bot, c2)).body.queue_position, null);
    assert.equal(await holder(c2), bob.user.id);

    const third = await handoff(bot, c3);
    assert.deepEqual(third.body, { status: 'bot', handoff_state: 'handoff_pending', wait_remaining: third.body.wait_remaining, queue_position: 1 });
    assert.equal((await handoff(bot, c4)).body.queue_position, 2);
    const state = await request('GET', `/widget/${bot.publicKey}/conversations/${c4.publicId}`, { headers: { 'X-Visitor-Id': c4.visitorKey, 'X-Forwarded-For': freshIp() } });
    assert.equal(state.body.queue_position, 2);

    // The event and the agent's own channel say who decided: the system.
    const assigned = await ConversationEvent.findOne({ where: { conversationId: c1.id, type: 'assigned' } });
    assert.deepEqual([assigned?.source, assigned?.userId], ['system', ann.user.id]);
    const told = await ann.inbox!.next((r) => r.name === 'conversation.assigned' && (r.payload.data as { conversation_id: string }).conversation_id === c1.publicId);
    assert.deepEqual(told.payload.data, { conversation_id: c1.publicId, by: null });
    // Its own push (the open tab hears it as `notification`, under the push preferences), for Ann alone.
    const pushed = await ann.inbox!.next((r) => r.name === 'notification' && (r.payload.data as { event: string }).event === 'conversation_assigned');
    assert.deepEqual(
      [(pushed.payload.data as { conversation_id: string }).conversation_id, (pushed.payload.data as { title: string }).title.endsWith('was assigned to you')],
      [c1.publicId, true],
    );
    await bob.inbox!.next((r) => r.name === 'notification' && (r.payload.data as { event: string; conversation_id: string }).event === 'conversation_assigned' && (r.payload.data as { conversation_id: string }).conversation_id === c2.publicId);
    const notForBob = bob.inbox!.received.filter((r) => r.name === 'notification' && (r.payload.data as { event: string; conversation_id: string }).event === 'conversation_assigned' && (r.payload.data as { conversation_id: string }).conversation_id === c1.publicId);
    assert.deepEqual(notForBob, [], "Ann's assignment is not pushed to Bob");

    // Ann resolves: her seat takes the head of the queue; the next moves up.
    assert.equal((await agentPost(ann, c1, 'resolve')).status, 200);
    assert.equal(await eventually(() => holder(c3), (id) => id !== null), ann.user.id);
    const moved = await request('GET', `/widget/${bot.publicKey}/conversations/${c4.publicId}`, { headers: { 'X-Visitor-Id': c4.visitorKey, 'X-Forwarded-For': freshIp() } });
    assert.equal(moved.body.queue_position, 1);
    // Bob hands his back to the AI: his seat is free for the last one.
    assert.equal((await agentPost(bob, c2, 'release')).status, 200);
    assert.equal(await eventually(() => holder(c4), (id) => id !== null), bob.user.id);
    const gone = await request('GET', `/widget/${bot.publicKey}/conversations/${c4.publicId}`, { headers: { 'X-Visitor-Id': c4.visitorKey, 'X-Forwarded-For': freshIp() } });
    assert.deepEqual([gone.body.status, gone.body.queue_position], ['agent', null]);
  });

  it('pushes the new place in the queue to a waiting widget as the queue moves (queue.position)', async () => {
    const { company, bot } = await workspace({ capacity: 1 });
    const ann = await agentOnline(company);
    const [c1, c2, c3] = [await waiting(bot), await waiting(bot), await waiting(bot)];
    assert.equal((await handoff(bot, c1)).body.queue_position, null);
    assert.equal((await handoff(bot, c2)).body.queue_position, 1);
    const widgetSocket = await connect(server().url, { key: bot.publicKey, visitor_id: c3.visitorKey, conversation_id: c3.publicId });
    sockets.push(widgetSocket);
    const widgetInbox = new Inbox(widgetSocket);
    assert.equal((await handoff(bot, c3)).body.queue_position, 2);
    const second = await widgetInbox.next((r) => r.name === 'queue.position');
    assert.deepEqual(second.payload.data, { conversation_id: c3.publicId, queue_position: 2 });

    // Ann resolves the first: the second is hers, and the third's widget hears it is next, without asking.
    assert.equal((await agentPost(ann, c1, 'resolve')).status, 200);
    const next = await widgetInbox.next((r) => r.name === 'queue.position' && (r.payload.data as { queue_position: number }).queue_position === 1);
    assert.deepEqual([next.payload.data, next.payload.seq], [{ conversation_id: c3.publicId, queue_position: 1 }, 0]);
    assert.equal(await holder(c2), ann.user.id);
  });

  it('skips agents who are away, without the inbox open, or at their own capacity; coming online takes the waiting one', async () => {
    const { company, bot } = await workspace({ capacity: 2 });
    const away = await agentOnline(company);
    assert.deepEqual((await request('PATCH', '/api/agent/me/status', { token: away.token, body: { status: 'away' } })).body, { status: 'away' });
    await agentOnline(company, { socket: false });
    const full = await agentOnline(company);
    await full.user.update({ capacity: 1 });
    const held = await waiting(bot);
    await held.update({ status: 'agent', handoffState: 'human_connected', assignedUserId: full.user.id });

    const c1 = await waiting(bot);
    assert.equal((await handoff(bot, c1)).body.queue_position, 1);
    assert.equal(await holder(c1), null);

    assert.equal((await request('PATCH', '/api/agent/me/status', { token: away.token, body: { status: 'online' } })).status, 200);
    assert.equal(await eventually(() => holder(c1), (id) => id !== null), away.user.id);
  });

  it('an agent who sends nothing within accept_seconds loses it to the next one (event reassigned); a reply keeps it', async () => {
    const { company, bot } = await workspace({ capacity: 2, accept_seconds: 5 });
    const [ann, bob] = [await agentOnline(company), await agentOnline(company)];
    const [c1, c2] = [await waiting(bot), await waiting(bot)];
    await handoff(bot, c1);
    await handoff(bot, c2);
    assert.deepEqual([await holder(c1), await holder(c2)], [ann.user.id, bob.user.id]);
    // Bob answers; Ann does not.
    assert.equal((await agentPost(bob, c2, 'reply', { body: 'Hello, Bob here.' })).status, 200);

    const reassigned = await eventually(() => ConversationEvent.findOne({ where: { conversationId: c1.id, type: 'reassigned' } }), (event) => event !== null, 20_000);
    assert.deepEqual([reassigned?.source, reassigned?.userId, reassigned?.data], ['system', ann.user.id, { from_user_id: ann.user.id }]);
    // Ann has room too, but she let it lapse: the next one, Bob, gets it; Bob keeps the one he answered.
    assert.equal(await eventually(() => holder(c1), (id) => id !== null), bob.user.id);
    assert.equal(await holder(c2), bob.user.id);
    const events = await ConversationEvent.findAll({ where: { conversationId: c1.id, type: { [Op.in]: ['assigned', 'reassigned'] } }, order: [['id', 'ASC']] });
    assert.deepEqual(events.map((event) => [event.type, event.userId]), [['assigned', ann.user.id], ['reassigned', ann.user.id], ['assigned', bob.user.id]]);
  });

  describe('business hours', () => {
    // Every day closed: whenever this runs, it is after hours.
    const closed = { business_hours: { timezone: 'Pacific/Auckland', days: {} }, offline_message: 'Back on Monday at 9.' };

    it('after hours with ai_after_hours (the default) the handoff answers offline and the AI keeps the conversation', async () => {
      const { company, bot } = await workspace({ mode: 'manual', ...closed });
      await agentOnline(company, { wait: false });
      const c1 = await waiting(bot);
      const answer = await handoff(bot, c1);
      assert.deepEqual(answer.body, { status: 'bot', handoff_state: 'bot_active', wait_remaining: null, offline: true, offline_message: 'Back on Monday at 9.' });
      assert.equal((await Conversation.findByPk(c1.id))!.handoffState, 'bot_active');
    });

    it('after hours the widget leaves an email with the handoff: stored as the visitor\'s, a verified identity\'s kept, a bad one refused', async () => {
      const { bot } = await workspace({ mode: 'manual', ...closed });
      const c1 = await waiting(bot);
      const leave = (conversation: Conversation, email: unknown) =>
        request('POST', `/widget/${bot.publicKey}/handoff`, { body: { visitor_id: conversation.visitorKey, conversation_id: conversation.publicId, email }, headers: { 'X-Forwarded-For': freshIp() } });
      const answer = await leave(c1, 'night.owl@example.test');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.offline, true);
      assert.equal((await Conversation.findByPk(c1.id))!.visitorEmail, 'night.owl@example.test');
      const events = await ConversationEvent.findAll({ where: { conversationId: c1.id, type: 'email_left' } });
      assert.deepEqual(events.map((event) => event.source), ['visitor']);

      const refused = await leave(c1, 'not an address');
      assert.equal(refused.status, 422);
      assert.ok(refused.body.errors.email, JSON.stringify(refused.body));

      const verified = await waiting(bot);
      await verified.update({ visitorEmail: 'real@customer.test', identity: { sub: 'cust-1', email: 'real@customer.test', exp: 4102444800 } });
      assert.equal((await leave(verified, 'someone.else@example.test')).status, 200);
      assert.equal((await Conversation.findByPk(verified.id))!.visitorEmail, 'real@customer.test');
    });

    it('after hours without ai_after_hours the conversation waits for a person and the AI stays silent, saying the offline message', async () => {
      const { company, bot } = await workspace({ ...closed, ai_after_hours: false });
      await make.providerKey(company, bot.provider);
      const c1 = await waiting(bot);
      const answer = await handoff(bot, c1);
      assert.deepEqual(answer.body, { status: 'bot', handoff_state: 'handoff_pending', wait_remaining: answer.body.wait_remaining, queue_position: 1, offline: true, offline_message: 'Back on Monday at 9.' });

      const calls = fakeLlm().requests.length;
      const visitor = newVisitor();
      const reply = await ask({ base: `/widget/${bot.publicKey}`, ip: freshIp() }, { visitor_id: visitor, message: 'Anyone there at this hour?' });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.events.find((event) => event.event === 'error')?.data, { message: 'Back on Monday at 9.', code: 'handoff' });
      assert.equal(fakeLlm().requests.length, calls, 'no model was called');
    });
  });

  it('manual mode (the default) answers a handoff as before: no queue_position, nobody assigned', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    await agentOnline(company, { wait: false });
    const c1 = await waiting(bot);
    const answer = await handoff(bot, c1);
    assert.deepEqual(Object.keys(answer.body).sort(), ['handoff_state', 'status', 'wait_remaining']);
    assert.equal(answer.body.handoff_state, 'handoff_pending');
    assert.equal(await holder(c1), null);
  });
});
