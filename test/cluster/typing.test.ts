import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { eventually } from '../support/eventually';
import { cliOk } from '../support/processes';
import { joinChannel } from '../support/agent';
import { connect, Inbox, type ClientSocket, type Received } from '../support/sockets';

interface Typing {
  conversation_id: string;
  who: 'visitor' | 'agent';
  name: string;
  typing: boolean;
  preview?: string;
}

const ACK_MS = 3_000;
// The actor's own lapse is 5 s; the rest of the bound is slack for a busy machine.
const LAPSE_MS = 5_000;
const LAPSE_BOUND_MS = LAPSE_MS + 10_000;

const typingOf = (inbox: Inbox): Typing[] => inbox.received.filter((r: Received) => r.name === 'typing').map((r) => r.payload.data as Typing);

describe('typing across web processes', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  const sockets: ClientSocket[] = [];

  before(async () => {
    deployment = await Deployment.create();
    await Promise.all([deployment.start('type-a'), deployment.start('type-b')]);
    await deployment.settled();
  });
  after(async () => {
    sockets.forEach((socket) => socket.close());
    await deployment?.destroy();
  });

  const open = async (node: ClusterNode, auth: Record<string, unknown>) => {
    const socket = await connect(node.url, auth);
    sockets.push(socket);
    return { socket, inbox: new Inbox(socket) };
  };
  const type = (socket: ClientSocket, payload: Record<string, unknown>) => socket.timeout(ACK_MS).emitWithAck('typing', payload);

  it("the visitor's typing reaches an agent on another node and lapses there; the agent's reaches the widget on another node", async () => {
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Typing Team', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as {
      chatbot: { id: number; public_key: string };
    };
    const [{ public_id: conversationId }] = (await deployment.query<{ public_id: string }>(
      "INSERT INTO conversations (company_id, chatbot_id, visitor_key, visitor_name, status) VALUES ($1, $2, 'visitor-typing', 'Maya', 'bot') RETURNING public_id",
      [company.id, chatbot.id],
    )) as [{ public_id: string }];
    const email = 'ana@typing.test';
    await cliOk(['user', 'create', '--company', String(company.id), '--email', email, '--password', 'password-123', '--name', 'Ana', '--role', 'agent'], deployment.env());
    const { token } = (await cliOk(['token', 'create', '--user', email, '--ability', 'agent'], deployment.env())) as { token: string };

    // The widget sits on the node that does not own the conversation's actor, the agent on the owner:
    // the visitor's signal crosses to the actor, and the actor's event crosses back to the widget.
    const owner = await deployment.ownerOf('conversation', conversationId);
    const elsewhere = deployment.live().find((node) => node !== owner)!;
    const agent = await open(owner, { token });
    await joinChannel(agent.socket, token, `private-conversation.${conversationId}`, elsewhere.url);
    const widget = await open(elsewhere, { key: chatbot.public_key, visitor_id: 'visitor-typing', conversation_id: conversationId });

    // (1) One start, then silence: the owner ends the state itself after the lapse.
    const sentAt = Date.now();
    assert.deepEqual(await type(widget.socket, { typing: true, preview: 'Where is my' }), { ok: true });
    const visitorTyping = await eventually(() => typingOf(agent.inbox), (seen) => seen.length === 2, LAPSE_BOUND_MS);
    const lapsedAfter = Date.now() - sentAt;
    assert.deepEqual(visitorTyping, [
      { conversation_id: conversationId, who: 'visitor', name: 'Maya', typing: true, preview: 'Where is my' },
      { conversation_id: conversationId, who: 'visitor', name: 'Maya', typing: false },
    ]);
    assert.ok(lapsedAfter >= LAPSE_MS - 100 && lapsedAfter < LAPSE_BOUND_MS, `typing: false after ${lapsedAfter} ms`);
    assert.deepEqual(typingOf(widget.inbox), [], "the visitor's own typing is not echoed to the widget");

    // (2) The agent's start and stop reach the widget on the other node.
    assert.deepEqual(await type(agent.socket, { conversation_id: conversationId, typing: true }), { ok: true });
    await eventually(() => typingOf(widget.inbox), (seen) => seen.length === 1, ACK_MS);
    assert.deepEqual(await type(agent.socket, { conversation_id: conversationId, typing: false }), { ok: true });
    assert.deepEqual(await eventually(() => typingOf(widget.inbox), (seen) => seen.length === 2, ACK_MS * 3), [
      { conversation_id: conversationId, who: 'agent', name: 'Ana', typing: true },
      { conversation_id: conversationId, who: 'agent', name: 'Ana', typing: false },
    ]);
  });
});
