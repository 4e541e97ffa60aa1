import { randomUUID } from 'node:crypto';
import type { Balancer } from './balancer';
import type { WebNode } from './cluster';
import { post, type HttpOutcome } from './http';
import { journalVisitorMessage, type AgentReply, type Attempt, type Journal, type VisitorMessage } from './journal';
import { sleep } from './ports';

/** The widget's own rules (client/widget/widget.js): 60 s without a byte ends a stream; a cut-off answer is sent again after 1.5 s. */
const STREAM_IDLE_MS = 60_000;
const RESEND_MS = 1_500;
/** A visitor whose message did not get through sends it again (same client id) after this pause. */
const RESEND_REFUSED_MS = 1_000;
const AGENT_RETRY_MS = 500;
const AGENT_TIMEOUT_MS = 30_000;

export interface LoadContext {
  balancer: Balancer;
  journal: Journal;
  chatbotKey: string;
  giveUpMs: number;
  stopping(): boolean;
}

let addresses = 0;
/** Each request from its own address: the per-IP limit (20 streams a minute) is not what this run measures. */
function freshIp(): string {
  const n = ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

const pause = (ms: number) => sleep(ms * (0.75 + Math.random() / 2));

/** Fewer than the flood rule's 10 a minute, however fast the answers come. */
const MESSAGES_PER_CONVERSATION = 8;

/**
 * One widget visitor: one conversation, one message at a time (as the widget queues them), each with
 * its own client id, sent again with the same id until it is answered (or, in a handoff conversation,
 * held for a person), exactly as the widget resends a message that failed or whose answer was cut off.
 */
export async function visitor(ctx: LoadContext, visitorName: string, handoff: boolean): Promise<void> {
  let conversationId: string | undefined;
  let name = visitorName;
  for (let sent = 0; !ctx.stopping(); sent++) {
    // More than 10 messages a minute in one conversation is flooding (docs/api.md): after a few, the
    // visitor comes back as a new one, with a conversation of its own.
    const n = (sent % MESSAGES_PER_CONVERSATION) + 1;
    if (n === 1 && sent > 0) [name, conversationId] = [`${visitorName}-${sent / MESSAGES_PER_CONVERSATION}`, undefined];
    // Handoff visitors ask for a person in their first message; nothing else any visitor says does.
    const question = handoff && n === 1 ? 'I want to talk to a human, please.' : `Question ${n}: do you ship to Oslo, and how long does it take?`;
    const message = journalVisitorMessage(ctx.journal, name, handoff, question);
    const { clientId } = message;
    const first = Date.now();
    while (message.result === 'pending') {
      if (Date.now() - first > ctx.giveUpMs) {
        message.result = 'gave-up';
        break;
      }
      const node = ctx.balancer.pick();
      if (!node?.url) {
        await sleep(RESEND_REFUSED_MS);
        continue;
      }
      message.attempts++;
      const body = { visitor_id: name, message: message.text, client_id: clientId, ...(conversationId && { conversation_id: conversationId }) };
      const startedAt = Date.now();
      const outcome = await post(node.url, `/widget/${ctx.chatbotKey}/stream`, body, { 'x-forwarded-for': freshIp() }, STREAM_IDLE_MS);
      const verdict = streamVerdict(outcome, message);
      conversationId ??= [...message.conversationIds][0];
      if (handoff && n === 1 && conversationId && !ctx.journal.handoffConversations.includes(conversationId)) ctx.journal.handoffConversations.push(conversationId);
      const answer = { status: outcome.status, retryAfter: outcome.retryAfter };
      record(ctx, node, { sender: 'visitor', who: name, conversationId, clientId, node: node.name, startedAt, endedAt: Date.now(), ...answer, ...verdict });
      if (!verdict.ok) await sleep(message.visitorMessageIds.size ? RESEND_MS : RESEND_REFUSED_MS);
    }
    await pause(800);
  }
}

/** What one stream attempt amounts to, noting on the message what it acknowledged. */
function streamVerdict(outcome: HttpOutcome, message: VisitorMessage): { ok: boolean; outcome: string } {
  if (outcome.status === 0) return { ok: false, outcome: outcome.failure ?? 'no answer' };
  if (outcome.status !== 200 || outcome.json) return { ok: false, outcome: `http ${outcome.status} ${String(outcome.json?.code ?? '')}`.trim() };
  let deltas = '';
  for (const { event, data } of outcome.events) {
    if (event === 'meta') {
      if (typeof data.conversation_id === 'string') message.conversationIds.add(data.conversation_id);
      if (typeof data.visitor_message_id === 'number') message.visitorMessageIds.add(data.visitor_message_id);
    } else if (event === 'delta' && typeof data.delta === 'string') {
      deltas += data.delta;
    } else if (event === 'done') {
      if (typeof data.message_id === 'number') message.answerIds.add(data.message_id);
      message.answerText = deltas;
      message.result = 'answered';
      return { ok: true, outcome: 'done' };
    } else if (event === 'error') {
      if (data.code === 'handoff') {
        message.result = 'held';
        return { ok: true, outcome: 'handoff' };
      }
      return { ok: false, outcome: `sse ${String(data.code)}` };
    }
  }
  const saw = outcome.events.some((e) => e.event === 'meta') ? 'after meta' : 'before meta';
  return { ok: false, outcome: `stream cut ${saw}${outcome.failure ? ` (${outcome.failure})` : ''}` };
}

/**
 * One agent: replies in handoff conversations (taking them over), each reply with its own client id,
 * sent again with the same id until it is answered 200, as the agent app does.
 */
export async function agent(ctx: LoadContext, name: string, token: string): Promise<void> {
  while (!ctx.stopping()) {
    const pool = ctx.journal.handoffConversations;
    if (!pool.length) {
      await sleep(200);
      continue;
    }
    const conversationId = pool[Math.floor(Math.random() * pool.length)]!;
    await reply(ctx, name, token, conversationId);
    await pause(700);
  }
}

/** One agent reply with its retries, as the agent app sends it: the same client id until answered 200. */
export async function reply(ctx: LoadContext, name: string, token: string, conversationId: string): Promise<AgentReply> {
  const entry = newReply(ctx, 'agent', name, conversationId);
  const first = Date.now();
  while (entry.result === 'pending') {
    if (Date.now() - first > ctx.giveUpMs) {
      entry.result = 'gave-up';
      break;
    }
    const node = ctx.balancer.pick();
    if (!node?.url) {
      await sleep(AGENT_RETRY_MS);
      continue;
    }
    if (!(await replyAttempt(ctx, entry, node, token, AGENT_TIMEOUT_MS))) await sleep(AGENT_RETRY_MS);
  }
  return entry;
}

export function newReply(ctx: LoadContext, sender: AgentReply['sender'], name: string, conversationId: string): AgentReply {
  const entry: AgentReply = { sender, agent: name, conversationId, clientId: randomUUID(), messageIds: new Set(), attempts: 0, result: 'pending' };
  ctx.journal.replies.push(entry);
  return entry;
}

/** One attempt of an agent reply, journaled; true when answered 200 with a message id. */
export async function replyAttempt(ctx: LoadContext, entry: AgentReply, node: WebNode, token: string, timeoutMs: number): Promise<boolean> {
  entry.attempts++;
  const startedAt = Date.now();
  const body = { body: `[${entry.clientId}] ${entry.agent} here: it ships tomorrow.`, client_id: entry.clientId };
  const outcome = await post(node.url!, `/api/agent/conversations/${entry.conversationId}/reply`, body, { authorization: `Bearer ${token}` }, timeoutMs);
  const id = (outcome.json?.message as { id?: unknown } | undefined)?.id;
  const ok = outcome.status === 200 && typeof id === 'number';
  if (ok) {
    entry.messageIds.add(id);
    entry.result = 'sent';
  }
  const what = outcome.status === 0 ? (outcome.failure ?? 'no answer') : `http ${outcome.status}${ok ? '' : ` ${String(outcome.json?.code ?? '')}`}`.trim();
  const answer = { status: outcome.status, retryAfter: outcome.retryAfter };
  record(ctx, node, { sender: entry.sender, who: entry.agent, conversationId: entry.conversationId, clientId: entry.clientId, node: node.name, startedAt, endedAt: Date.now(), ...answer, ok, outcome: what });
  return ok;
}

function record(ctx: LoadContext, node: WebNode, attempt: Attempt): void {
  ctx.journal.attempts.push(attempt);
  if (attempt.outcome === 'ECONNREFUSED') ctx.balancer.markDown(node);
}
