import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RealtimeEmitter } from '../../src/realtime/emitter';
import { WATCH_PERIOD_MS } from '../../src/realtime/watchPoll';
import { joinChannel } from '../support/agent';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { fakeLlm, server } from '../support/hooks';
import { connect, Inbox, type ClientSocket } from '../support/sockets';
import { ask, newVisitor, widgetTenant } from '../support/widget';

/** Slack over the watch period for a busy machine: the join's store write, the read's round trip, the next delta. */
const SLACK_MS = 1_500;

describe('message.delta to agents: published only while the conversation is watched', () => {
  const sockets: ClientSocket[] = [];
  beforeEach(() => fakeLlm().reset());
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  it('publishes nothing while nobody watches, and an agent opening the conversation mid-answer gets the rest within the watch period', async () => {
    const tenant = await widgetTenant();
    const token = await make.token(await make.user(tenant.company, 'agent'), 'agent');
    fakeLlm().script({ reply: 'Hello there.' });
    const visitor = newVisitor();
    const first = await ask(tenant, { visitor_id: visitor, message: 'Hi' });
    const conversationId = first.events[0]!.data.conversation_id as string;
    const channel = `private-conversation.${conversationId}`;

    // What the node publishes for this conversation, seen at the emitter every actor publishes through.
    const realtime = server().realtime as RealtimeEmitter;
    const emit = realtime.emit;
    const published: number[] = [];
    realtime.emit = function (this: RealtimeEmitter, ...args: Parameters<RealtimeEmitter['emit']>) {
      if (args[0] === channel && args[1] === 'message.delta') published.push(Date.now());
      return emit.apply(this, args);
    } as RealtimeEmitter['emit'];
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // 100 deltas of 3 words, 30 ms apart: about 3 s of answer after the hold.
      const words = Array.from({ length: 300 }, (_, i) => `w${i} `).join('');
      fakeLlm().script({ reply: words, delayMs: 30, holdAfterFirst: held });
      const answer = ask(tenant, { visitor_id: visitor, message: 'Tell me more', conversation_id: conversationId });
      await eventually(() => fakeLlm().requests.length, (count) => count === 2, 5_000);
      await sleep(300); // the answer's first read of its watchers has answered: nobody
      const releasedAt = Date.now();
      release();
      await sleep(700);
      assert.deepEqual(published.filter((at) => at >= releasedAt), [], 'nothing published for an unwatched conversation');

      const socket = await connect(server().url, { token });
      sockets.push(socket);
      const inbox = new Inbox(socket);
      await joinChannel(socket, token, channel);
      const joinedAt = Date.now();
      await inbox.next((received) => received.name === 'message.delta');
      const waited = Date.now() - joinedAt;
      assert.ok(waited < WATCH_PERIOD_MS + SLACK_MS, `the first delta reached the agent ${waited} ms after it joined`);

      const reply = await answer;
      assert.equal(reply.events.at(-1)!.event, 'done');
      assert.equal(reply.events.filter((event) => event.event === 'delta').map((event) => event.data.delta).join(''), words, 'the visitor got the whole answer');
      await inbox.next((received) => received.name === 'message.created'); // the answer's line comes after its last delta
      const live = inbox.received.filter((received) => received.name === 'message.delta').map((received) => (received.payload.data as { delta: string }).delta).join('');
      assert.ok(live.length > 0 && live.length < words.length && words.endsWith(live), `the agent got the rest of the answer from where it joined: ${JSON.stringify(live.slice(0, 40))}`);
    } finally {
      realtime.emit = emit;
    }
  });
});
