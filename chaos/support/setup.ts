import { CLI, lastJsonLine, runChild } from '../../bench/support/processes';
import type { Balancer } from './balancer';
import { post } from './http';
import { journalVisitorMessage, type Journal } from './journal';
import { sleep } from './ports';

export interface Workspace {
  companyId: number;
  chatbotKey: string;
  /** One token per agent (ability `agent`), and the probe's. */
  agentTokens: string[];
  probeToken: string;
}

async function parley<T>(args: string[], env: Record<string, string>): Promise<T> {
  return lastJsonLine<T>(await runChild([CLI, ...args], { ...env, LOG_LEVEL: 'warn' }, 120_000), `parley ${args.join(' ')}`);
}

/** The schema, one workspace (enterprise: no monthly cap), its chatbot, and agents with tokens, all through the CLI. */
export async function createWorkspace(env: Record<string, string>, agents: number): Promise<Workspace> {
  await parley(['migrate'], env);
  const { company } = await parley<{ company: { id: number } }>(['workspace', 'create', '--name', 'Chaos Outfitters', '--plan', 'enterprise'], env);
  const { chatbot } = await parley<{ chatbot: { public_key: string } }>(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], env);
  const names = [...Array.from({ length: agents }, (_, i) => `agent${i + 1}`), 'probe'];
  const tokens = await Promise.all(
    names.map(async (name) => {
      const { user } = await parley<{ user: { id: number } }>(
        ['user', 'create', '--company', String(company.id), '--email', `${name}@chaos.test`, '--password', 'chaos-password-1', '--name', name, '--role', 'agent'],
        env,
      );
      const { token } = await parley<{ token: string }>(['token', 'create', '--user', String(user.id), '--ability', 'agent'], env);
      return token;
    }),
  );
  return { companyId: company.id, chatbotKey: chatbot.public_key, agentTokens: tokens.slice(0, agents), probeToken: tokens.at(-1)! };
}

/**
 * Conversations for the recovery probe, spread over the shards by their random ids: each opened by a
 * visitor asking for a person (so the AI stays out of them). Their first messages are journaled and
 * checked like every other.
 */
export async function openProbeConversations(balancer: Balancer, journal: Journal, chatbotKey: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const message = journalVisitorMessage(journal, `probe-visitor-${i}`, true, 'I want to talk to a human, please.');
    const { clientId } = message;
    for (let attempt = 1; ; attempt++) {
      const node = balancer.pick();
      if (node?.url) {
        message.attempts++;
        const outcome = await post(node.url, `/widget/${chatbotKey}/stream`, { visitor_id: message.visitor, message: message.text, client_id: clientId }, { 'x-forwarded-for': `10.200.0.${i}` }, 30_000);
        let deltas = '';
        for (const { event, data } of outcome.events) {
          if (event === 'delta' && typeof data.delta === 'string') deltas += data.delta;
          if (event === 'meta' && typeof data.conversation_id === 'string' && typeof data.visitor_message_id === 'number') {
            message.conversationIds.add(data.conversation_id);
            message.visitorMessageIds.add(data.visitor_message_id);
          }
          if (event === 'done' && typeof data.message_id === 'number') {
            message.answerIds.add(data.message_id);
            message.answerText = deltas;
            message.result = 'answered';
          }
        }
        if (message.result === 'answered') break;
      }
      if (attempt >= 10) throw new Error(`could not open probe conversation ${i}`);
      await sleep(500);
    }
    ids.push([...message.conversationIds][0]!);
  }
  return ids;
}

/** The run's webhook, through the CLI as an operator would register it; its secret goes to the receiver. */
export async function createWebhook(env: Record<string, string>, companyId: number, url: string, events: string[]): Promise<{ id: number; secret: string }> {
  const { webhook } = await parley<{ webhook: { id: number; secret: string } }>(['webhook', 'create', '--company', String(companyId), '--url', url, '--events', events.join(',')], env);
  return webhook;
}
