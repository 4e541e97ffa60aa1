import { strict as assert } from 'node:assert';
import { request } from '../support/http';
import { server } from '../support/hooks';
import * as make from '../support/factories';
import { connect, Inbox, subscribe, type ClientSocket, type Received } from '../support/sockets';

const WAIT_MS = 3_000;
const isTyping = (received: Received) => received.name === 'typing';

/** A workspace with an agent (name known) and a conversation of its chatbot. */
async function tenant() {
  const { company } = await make.workspace();
  const agent = await make.user(company, 'agent');
  const bot = await make.chatbot(company);
  const conversation = await make.conversation(bot);
  return { company, agent, bot, conversation, token: await make.token(agent, 'agent') };
}

describe('typing (socket event `typing`, through the conversation actor)', () => {
  const sockets: ClientSocket[] = [];
  const open = async (auth: Record<string, unknown>) => {
    const socket = await connect(server().url, auth);
    sockets.push(socket);
    return socket;
  };
  const widgetOf = (t: Awaited<ReturnType<typeof tenant>>) =>
    open({ key: t.bot.publicKey, visitor_id: t.conversation.visitorKey, conversation_id: t.conversation.publicId });
  /** An agent socket subscribed to the conversation's channel through the real endpoint. */
  const watching = async (t: Awaited<ReturnType<typeof tenant>>) => {
    const socket = await open({ token: t.token });
    const channel = `private-conversation.${t.conversation.publicId}`;
    const signed = await request('POST', '/api/agent/broadcasting/auth', { token: t.token, body: { socket_id: socket.id, channel_name: channel } });
    assert.equal(signed.status, 200);
    assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: true });
    return { socket, inbox: new Inbox(socket) };
  };
  const type = (socket: ClientSocket, payload: unknown) => socket.timeout(WAIT_MS).emitWithAck('typing', payload);
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  it("the visitor's typing reaches a watching agent once per interval, with the preview, and its stop", async () => {
    const t = await tenant();
    const agent = await watching(t);
    const widget = await widgetOf(t);
    const echoed = new Inbox(widget);
    for (const preview of ['Hel', 'Hello', 'Hello the']) assert.deepEqual(await type(widget, { typing: true, preview }), { ok: true });
    assert.deepEqual(await type(widget, { typing: false }), { ok: true });
    await agent.inbox.next((r) => isTyping(r) && r.payload.data !== null && (r.payload.data as { typing: boolean }).typing === false);
    const name = `Visitor ${t.conversation.visitorKey.replace(/[^a-z0-9]/gi, '').slice(-6).toUpperCase()}`;
    assert.deepEqual(
      agent.inbox.received.filter(isTyping).map((r) => ({ channel: r.payload.channel, data: r.payload.data })),
      [
        { channel: `private-conversation.${t.conversation.publicId}`, data: { conversation_id: t.conversation.publicId, who: 'visitor', name, typing: true, preview: 'Hel' } },
        { channel: `private-conversation.${t.conversation.publicId}`, data: { conversation_id: t.conversation.publicId, who: 'visitor', name, typing: false } },
      ],
    );
    // The visitor's own typing is not echoed back to the widget.
    assert.deepEqual(echoed.received.filter(isTyping), []);
  });

  it('sends no preview when the chatbot has behavior_tracking off, and refuses a preview over 120 characters', async () => {
    const t = await tenant();
    await t.bot.update({ branding: { ...t.bot.branding, behavior_tracking: false } });
    const agent = await watching(t);
    const widget = await widgetOf(t);
    assert.deepEqual(await type(widget, { typing: true, preview: 'x'.repeat(121) }), {
      ok: false,
      message: 'The typing payload must be {typing, preview?} with a preview of at most 120 characters.',
    });
    assert.deepEqual(await type(widget, { typing: true, preview: 'my card number is' }), { ok: true });
    const started = await agent.inbox.next(isTyping);
    const { name: _name, ...data } = started.payload.data as { name: string };
    assert.deepEqual(data, { conversation_id: t.conversation.publicId, who: 'visitor', typing: true });
  });

  it("an agent's typing reaches the widget with the agent's name, and ends it with typing: false when no repeat comes", async function () {
    this.timeout(20_000);
    const t = await tenant();
    const agent = await watching(t);
    const widget = await widgetOf(t);
    const seen = new Inbox(widget);
    const started = Date.now();
    assert.deepEqual(await type(agent.socket, { conversation_id: t.conversation.publicId, typing: true }), { ok: true });
    const on = await seen.next(isTyping);
    assert.deepEqual(on.payload.data, { conversation_id: t.conversation.publicId, who: 'agent', name: t.agent.name, typing: true });
    // The actor ends the state itself: at the lapse, or sooner if it passivates (tests passivate idle actors after 1.5 s).
    const off = await waitFor(seen, (r) => isTyping(r) && (r.payload.data as { typing: boolean }).typing === false, 10_000);
    assert.deepEqual(off.payload.data, { conversation_id: t.conversation.publicId, who: 'agent', name: t.agent.name, typing: false });
    assert.ok(Date.now() - started < 7_000);
  });

  it("refuses typing for a conversation whose channel the socket has not joined (another workspace's included)", async () => {
    const mine = await tenant();
    const theirs = await tenant();
    const watcher = await watching(theirs);
    const socket = await open({ token: mine.token });
    for (const conversationId of [theirs.conversation.publicId, mine.conversation.publicId]) {
      assert.deepEqual(await type(socket, { conversation_id: conversationId, typing: true }), { ok: false, message: "Subscribe to the conversation's channel first." });
    }
    assert.deepEqual(await type(socket, { typing: true }), { ok: false, message: 'The typing payload must be {conversation_id, typing}.' });
    // The refused signal never reached the other workspace: its own agent's signal is the first it sees.
    assert.deepEqual(await type(watcher.socket, { conversation_id: theirs.conversation.publicId, typing: true }), { ok: true });
    const first = await watcher.inbox.next(isTyping);
    assert.equal((first.payload.data as { who: string; name: string }).name, theirs.agent.name);
  });
});

/** Inbox.next with a longer bound, for a state that ends on the server's own clock. */
async function waitFor(inbox: Inbox, match: (received: Received) => boolean, boundMs: number): Promise<Received> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      return await inbox.next(match);
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
  }
}
