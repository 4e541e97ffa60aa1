import { z } from 'zod';
import { Chatbot, Company, User } from '../models';
import type { AppContext } from '../context';
import { createWorkspace } from '../domain/accounts/createWorkspace';
import { createUser } from '../domain/accounts/createUser';
import { findUserByEmail } from '../domain/accounts/findUserByEmail';
import { issueToken } from '../domain/accounts/tokens';
import { createChatbot } from '../domain/chatbots/createChatbot';
import { defineCommand } from './command';
import { presentV1Company } from '../presenters/account';

const DEMO_SLUG = 'parley-demo';
const DEMO_PASSWORD = 'parley-demo-123';
const DEMO_USERS = [
  { email: 'owner@parley-demo.test', name: 'Olivia Owner', role: 'owner' },
  { email: 'admin@parley-demo.test', name: 'Adam Admin', role: 'admin' },
  { email: 'agent@parley-demo.test', name: 'Ada Agent', role: 'agent' },
] as const;

/** Everything a newcomer needs to try Parley. Safe to run again: it reuses the demo workspace and mints a fresh token. */
export const seedDemo = defineCommand({
  usage: 'seed demo',
  flags: {},
  schema: z.object({}),
  async run(ctx, _flags) {
    const company = (await Company.findOne({ where: { slug: DEMO_SLUG } })) ?? (await createDemoWorkspace());
    const users: User[] = [];
    for (const demo of DEMO_USERS) {
      users.push((await findUserByEmail(demo.email)) ?? (await createUser(company, { ...demo, password: DEMO_PASSWORD })));
    }
    const chatbot =
      (await Chatbot.findOne({ where: { companyId: company.id }, order: [['id', 'ASC']] })) ?? (await createDemoChatbot(ctx, company));
    const { plain } = await issueToken(users[0]!, 'api', { name: 'demo' });
    const base = ctx.config.appUrl;
    return {
      workspace: presentV1Company(company),
      users: users.map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role, password: DEMO_PASSWORD })),
      chatbot: { id: chatbot.id, public_key: chatbot.publicKey, name: chatbot.name, provider: chatbot.provider, model: chatbot.model },
      api_token: plain,
      urls: {
        app: base,
        demo_page: `${base}/`,
        widget_js: `${base}/widget.js`,
        api_v1: `${base}/api/v1`,
        portal_api: `${base}/api/portal`,
        agent_api: `${base}/api/agent`,
        try_it: `curl -H "Authorization: Bearer ${plain}" ${base}/api/v1/chatbots`,
      },
    };
  },
});

async function createDemoWorkspace(): Promise<Company> {
  const { company } = await createWorkspace({ name: 'Parley Demo', plan: 'pro', portalEnabled: true });
  return company;
}

async function createDemoChatbot(ctx: AppContext, company: Company): Promise<Chatbot> {
  const { chatbot } = await createChatbot(company, { name: 'Demo Assistant', liveVisitors: true }, ctx.secrets);
  return chatbot;
}
