import { Op } from 'sequelize';
import type { AppContext } from '../../context';
import { Chatbot, Company, KnowledgeSource, User } from '../../models';
import { hashPassword, verifyPassword } from '../../security/passwords';
import { createWorkspace } from '../accounts/createWorkspace';
import { createUser } from '../accounts/createUser';
import { createChatbot } from '../chatbots/createChatbot';
import { trainDocument } from '../knowledge/trainDocument';
import { DEMO_GUIDE } from './guide';
import { newDemoPassword, readDemoPasswords, writeDemoPasswords, type DemoPasswords } from './demoPasswords';

const DEMO_SLUG = 'parley-demo';
const DEMO_USERS = [
  { email: 'owner@parley-demo.test', name: 'Olivia Owner', role: 'owner' },
  { email: 'admin@parley-demo.test', name: 'Adam Admin', role: 'admin' },
  { email: 'agent@parley-demo.test', name: 'Ada Agent', role: 'agent' },
] as const;

export interface Demo {
  company: Company;
  /** The demo users that still exist, in owner, admin, agent order. */
  users: User[];
  chatbot: Chatbot;
  /** Passwords by email, for the users whose password this data directory knows. */
  passwords: DemoPasswords;
}

export interface DemoOptions {
  /**
   * Give demo users whose password this data directory does not know a new random one (`parley seed
   * demo` on another machine, say). A web node never does: several nodes with their own data
   * directories would keep changing each other's passwords.
   */
  resetUnknownPasswords?: boolean;
}

type DemoContext = Pick<AppContext, 'secrets' | 'config' | 'logger' | 'jobs'>;

/**
 * The demo workspace a newcomer tries Parley with: three users, a chatbot with live visitors on, and
 * a short guide in its knowledge, so even without any AI key the chatbot answers (extractively).
 * The users are created once, with the workspace: one an operator deletes stays deleted. The chatbot
 * and its guide are put back when missing, since the demo page needs them.
 */
export async function ensureDemo(ctx: DemoContext, options: DemoOptions = {}): Promise<Demo> {
  const { dataDir } = ctx.config;
  const passwords = readDemoPasswords(dataDir);
  const company = (await Company.findOne({ where: { slug: DEMO_SLUG } })) ?? (await createDemoWorkspace(dataDir, passwords));
  const users = await demoUsers(company);
  const known = await knownPasswords(users, passwords);
  if (options.resetUnknownPasswords) await resetUnknownPasswords(dataDir, users, known);
  const chatbot =
    (await Chatbot.findOne({ where: { companyId: company.id }, order: [['id', 'ASC']] })) ??
    (await createChatbot(company, { name: 'Demo Assistant', liveVisitors: true }, ctx.secrets)).chatbot;
  if (!(await KnowledgeSource.count({ where: { chatbotId: chatbot.id } }))) {
    await trainDocument(ctx, chatbot, { type: 'text', title: 'About Parley', content: DEMO_GUIDE });
  }
  return { company, users, chatbot, passwords: known };
}

/** The passwords are written down before the users exist, so a crash in between cannot lose them. */
async function createDemoWorkspace(dataDir: string, passwords: DemoPasswords): Promise<Company> {
  for (const { email } of DEMO_USERS) passwords[email] ??= newDemoPassword();
  writeDemoPasswords(dataDir, passwords);
  try {
    return await Company.sequelize!.transaction(async (transaction) => {
      const { company } = await createWorkspace({ name: 'Parley Demo', plan: 'pro', portalEnabled: true }, transaction);
      for (const user of DEMO_USERS) await createUser(company, { ...user, password: passwords[user.email]! }, transaction);
      return company;
    });
  } catch (error) {
    // Another process (a second node, `parley seed demo`) created it at the same moment: use theirs.
    const theirs = await Company.findOne({ where: { slug: DEMO_SLUG } });
    if (theirs) return theirs;
    throw error;
  }
}

async function demoUsers(company: Company): Promise<User[]> {
  const emails: string[] = DEMO_USERS.map((u) => u.email);
  const users = await User.findAll({ where: { companyId: company.id, email: { [Op.in]: emails } } });
  return users.sort((a, b) => emails.indexOf(a.email) - emails.indexOf(b.email));
}

/** Only a written-down password that still signs its user in is printed (the file may be older than the database). */
async function knownPasswords(users: User[], written: DemoPasswords): Promise<DemoPasswords> {
  const known: DemoPasswords = {};
  for (const user of users) {
    const password = written[user.email];
    if (password && (await verifyPassword(password, user.passwordHash))) known[user.email] = password;
  }
  return known;
}

/** Fills `known` in place with new passwords for the users it lacks, written down before they are set. */
async function resetUnknownPasswords(dataDir: string, users: User[], known: DemoPasswords): Promise<void> {
  const unknown = users.filter((user) => !known[user.email]);
  if (!unknown.length) return;
  for (const user of unknown) known[user.email] = newDemoPassword();
  writeDemoPasswords(dataDir, { ...readDemoPasswords(dataDir), ...known });
  for (const user of unknown) await user.update({ passwordHash: await hashPassword(known[user.email]!) });
}
