import { z } from 'zod';
import { issueToken } from '../domain/accounts/tokens';
import { ensureDemo } from '../domain/demo/ensureDemo';
import { defineCommand } from './command';
import { presentV1Company } from '../presenters/account';

/**
 * Everything a newcomer needs to try Parley. Safe to run again: it reuses the demo workspace and mints
 * a fresh token. Demo users whose password this data directory does not know get a new random one.
 */
export const seedDemo = defineCommand({
  usage: 'seed demo',
  summary: 'Creates (or reuses) the demo workspace; prints its users and passwords, chatbot, a fresh API token, URLs.',
  flags: {},
  schema: z.object({}),
  async run(ctx, _flags) {
    const { company, users, chatbot, passwords } = await ensureDemo(ctx, { resetUnknownPasswords: true });
    // The owner (or whichever demo user an operator left) holds the token; none left, no token.
    const plain = users[0] ? (await issueToken(users[0], 'api', { name: 'demo' })).plain : null;
    const base = ctx.config.appUrl;
    return {
      workspace: presentV1Company(company),
      users: users.map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role, password: passwords[u.email] })),
      chatbot: { id: chatbot.id, public_key: chatbot.publicKey, name: chatbot.name, provider: chatbot.provider, model: chatbot.model },
      api_token: plain,
      urls: {
        app: base,
        demo_page: `${base}/`,
        widget_js: `${base}/widget.js`,
        api_v1: `${base}/api/v1`,
        portal_api: `${base}/api/portal`,
        agent_api: `${base}/api/agent`,
        inbox: `${base}/inbox`,
        ...(plain ? { try_it: `curl -H "Authorization: Bearer ${plain}" ${base}/api/v1/chatbots` } : {}),
      },
    };
  },
});

