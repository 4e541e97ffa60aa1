import { fakeLlm, server } from '../hooks';
import { cliOk } from '../processes';
import type { Deployment } from './deployment';

/**
 * The idle-close tests' shop on `deployment`: two web nodes (`names`) whose AI closes a conversation
 * after `idleMinutes` of quiet, a workspace `shop` with a chatbot and a stored provider key (`keyTail`,
 * its last four). Returns the chatbot's widget base path.
 */
export async function openIdleShop(deployment: Deployment, names: [string, string], idleMinutes: string, shop: string, keyTail: string): Promise<string> {
  const env = { ...fakeLlm().envFor(), PROVIDER_TIMEOUT_MS: '5000', AI_IDLE_CLOSE_MINUTES: idleMinutes };
  await Promise.all(names.map((name) => deployment.start(name, env)));
  await deployment.settled();
  const { company } = (await cliOk(['workspace', 'create', '--name', shop, '--plan', 'pro'], deployment.env())) as { company: { id: number } };
  const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { public_key: string } };
  await deployment.query('INSERT INTO provider_keys (company_id, provider, key_encrypted, last_four) VALUES ($1, $2, $3, $4)', [company.id, 'openai', server().ctx.secrets.seal(`sk-idle-${keyTail}`), keyTail]);
  return `/widget/${chatbot.public_key}`;
}
