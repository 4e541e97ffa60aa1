import { Chatbot, Company, User } from '../models';
import { notFound } from '../errors';

/** The workspace a `--company ID` flag names; "Workspace not found." otherwise. */
export async function findWorkspace(id: number): Promise<Company> {
  const company = await Company.findByPk(id);
  if (!company) throw notFound('Workspace');
  return company;
}

/** The user a `--user ID` flag names; "User not found." otherwise. */
export async function findUser(id: number): Promise<User> {
  const user = await User.findByPk(id);
  if (!user) throw notFound('User');
  return user;
}

/** The chatbot a `--chatbot KEY_OR_ID` flag names: a public key, or the id `chatbot list` prints. */
export async function findChatbotByKeyOrId(keyOrId: string): Promise<Chatbot> {
  const chatbot = /^\d{1,9}$/.test(keyOrId) ? await Chatbot.findByPk(Number(keyOrId)) : await Chatbot.findOne({ where: { publicKey: keyOrId } });
  if (!chatbot) throw notFound('Chatbot');
  return chatbot;
}
