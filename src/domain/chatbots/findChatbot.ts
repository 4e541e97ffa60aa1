import { Chatbot, KnowledgeSource } from '../../models';
import { notFound } from '../../errors';

/** A chatbot of this workspace by public key; 404 alike for a missing key and another workspace's. */
export async function findChatbot(companyId: number, publicKey: string): Promise<Chatbot> {
  const chatbot = await Chatbot.findOne({ where: { companyId, publicKey } });
  if (!chatbot) throw notFound('Chatbot');
  return chatbot;
}

export function listChatbots(companyId: number): Promise<Chatbot[]> {
  return Chatbot.findAll({ where: { companyId }, order: [['id', 'ASC']] });
}

/** Top-level sources only: crawled pages are children of their URL source and not counted apart. */
export function countKnowledgeSources(chatbotId: number): Promise<number> {
  return KnowledgeSource.count({ where: { chatbotId, parentId: null } });
}
