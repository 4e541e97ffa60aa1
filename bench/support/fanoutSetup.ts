import { QueryTypes, type Sequelize } from 'sequelize';
import type { AppContext } from '../../src/context';
import { companyChannel } from '../../src/realtime/channels';
import { hashSecret, randomSecret } from '../../src/security/tokens';
import { TOKEN_LIFETIME_DAYS } from '../../src/domain/accounts/tokens';
import { benchChatbot } from './corpus';
import { freshIp, postWidgetStream, type Target } from './sseClient';

export interface FanoutWorkspace {
  index: number;
  companyId: number;
  chatbotKey: string;
  channel: string;
  /** `agent` tokens, one per agent, in the `<id>|<secret>` form the app holds. */
  tokens: string[];
  /** Open conversations held by an agent: a visitor message there is stored and fanned out, nothing else. */
  conversations: Array<{ id: string; visitor: string }>;
}

/**
 * `agents` users with an `agent` token each, in two statements: issuing 10,000 tokens one by one
 * through the domain would take minutes. Only the SHA-256 of each secret is stored, as issueToken does.
 */
async function seedAgents(db: Sequelize, companyId: number, agents: number): Promise<string[]> {
  const users = await db.query<{ id: number }>(
    `INSERT INTO users (company_id, name, email, password_hash, role)
     SELECT $1::int, 'Agent ' || g, 'fanout-agent-' || $1::int || '-' || g || '@example.test', 'bench-no-password', 'agent' FROM generate_series(1, $2::int) g
     RETURNING id`,
    { bind: [companyId, agents], type: QueryTypes.SELECT },
  );
  const secrets = users.map(() => randomSecret());
  const tokens = await db.query<{ id: number; user_id: number }>(
    `INSERT INTO access_tokens (user_id, company_id, name, ability, token_hash, expires_at)
     SELECT u, $1::int, 'agent token', 'agent', h, now() + interval '${TOKEN_LIFETIME_DAYS} days' FROM unnest($2::int[], $3::text[]) AS t(u, h)
     RETURNING id, user_id`,
    { bind: [companyId, users.map((u) => u.id), secrets.map(hashSecret)], type: QueryTypes.SELECT },
  );
  const secretOf = new Map(users.map((u, i) => [u.id, secrets[i]!]));
  return tokens.map((t) => `${t.id}|${secretOf.get(t.user_id)!}`);
}

export async function seedWorkspaces(ctx: AppContext, workspaces: number, agentsEach: number): Promise<FanoutWorkspace[]> {
  const seeded: FanoutWorkspace[] = [];
  for (let index = 0; index < workspaces; index++) {
    const bot = await benchChatbot(ctx, `Fanout bench ${index + 1}`);
    const tokens = await seedAgents(ctx.db.sequelize, bot.companyId, agentsEach);
    seeded.push({ index, companyId: bot.companyId, chatbotKey: bot.publicKey, channel: companyChannel(bot.companyId), tokens, conversations: [] });
  }
  return seeded;
}

/**
 * Opens `count` conversations in the workspace as visitors do (the widget stream; asking for a
 * person, so no provider is involved) and has an agent take each over, so that later visitor
 * messages are stored and fanned out without an AI answer.
 */
export async function openHeldConversations(target: Target, workspace: FanoutWorkspace, count: number, agentHttp: (path: string, token: string) => Promise<number>): Promise<void> {
  for (let i = 0; i < count; i++) {
    const visitor = `fanout-visitor-${workspace.index}-${i}`;
    let id: string | undefined;
    const { outcome } = postWidgetStream(target, workspace.chatbotKey, { visitor_id: visitor, message: 'I want to talk to a human, please.' }, freshIp(), (event, data) => {
      if (event === 'meta') id = (JSON.parse(data) as { conversation_id: string }).conversation_id;
    });
    const ended = await outcome;
    if (ended.status !== 200 || !id) throw new Error(`opening a conversation answered ${ended.status}: ${ended.detail ?? ended.lastData}`);
    const status = await agentHttp(`/api/agent/conversations/${id}/takeover`, workspace.tokens[i % workspace.tokens.length]!);
    if (status !== 200) throw new Error(`takeover answered ${status}`);
    workspace.conversations.push({ id, visitor });
  }
}
