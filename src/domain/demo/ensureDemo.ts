import type { AppContext } from '../../context';
import { Chatbot, Company, KnowledgeSource, type User } from '../../models';
import { createWorkspace } from '../accounts/createWorkspace';
import { createUser } from '../accounts/createUser';
import { findUserByEmail } from '../accounts/findUserByEmail';
import { createChatbot } from '../chatbots/createChatbot';
import { trainDocument } from '../knowledge/trainDocument';
import { DEMO_GUIDE } from './guide';

const DEMO_SLUG = 'parley-demo';
export const DEMO_PASSWORD = 'parley-demo-123';
const DEMO_USERS = [
  { email: 'owner@parley-demo.test', name: 'Olivia Owner', role: 'owner' },
  { email: 'admin@parley-demo.test', name: 'Adam Admin', role: 'admin' },
  { email: 'agent@parley-demo.test', name: 'Ada Agent', role: 'agent' },
] as const;

export interface Demo {
  company: Company;
  users: User[];
  chatbot: Chatbot;
}

/**
 * The demo workspace a newcomer tries Parley with: three users, a chatbot with live visitors on, and
 * a short guide in its knowledge, so even without any AI key the chatbot answers (extractively).
 * Idempotent: whatever exists is reused.
 */
export async function ensureDemo(ctx: Pick<AppContext, 'secrets' | 'config' | 'logger' | 'jobs'>): Promise<Demo> {
  const company = (await Company.findOne({ where: { slug: DEMO_SLUG } })) ?? (await createWorkspace({ name: 'Parley Demo', plan: 'pro', portalEnabled: true })).company;
  const users: User[] = [];
  for (const demo of DEMO_USERS) users.push((await findUserByEmail(demo.email)) ?? (await createUser(company, { ...demo, password: DEMO_PASSWORD })));
  const chatbot =
    (await Chatbot.findOne({ where: { companyId: company.id }, order: [['id', 'ASC']] })) ??
    (await createChatbot(company, { name: 'Demo Assistant', liveVisitors: true }, ctx.secrets)).chatbot;
  if (!(await KnowledgeSource.count({ where: { chatbotId: chatbot.id } }))) {
    await trainDocument(ctx, chatbot, { type: 'text', title: 'About Parley', content: DEMO_GUIDE });
  }
  return { company, users, chatbot };
}
