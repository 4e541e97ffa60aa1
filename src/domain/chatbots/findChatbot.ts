import { QueryTypes } from 'sequelize';
import { Chatbot, Company, KnowledgeSource } from '../../models';
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

export function countChatbots(companyId: number): Promise<number> {
  return Chatbot.count({ where: { companyId } });
}

export interface ChatbotCounts {
  knowledgeSources: number;
  conversations: number;
}

/** Top-level knowledge sources and conversations of each chatbot, in one query (zeros included). */
export async function countsOf(chatbotIds: number[]): Promise<Map<number, ChatbotCounts>> {
  const counts = new Map<number, ChatbotCounts>(chatbotIds.map((id) => [id, { knowledgeSources: 0, conversations: 0 }]));
  if (chatbotIds.length === 0) return counts;
  const rows = await Chatbot.sequelize!.query<{ id: number; knowledge_sources: string; conversations: string }>(
    `SELECT c.id,
            (SELECT count(*) FROM knowledge_sources k WHERE k.chatbot_id = c.id AND k.parent_id IS NULL) AS knowledge_sources,
            (SELECT count(*) FROM conversations v WHERE v.chatbot_id = c.id) AS conversations
       FROM unnest(ARRAY[:ids]::integer[]) AS c(id)`,
    { replacements: { ids: chatbotIds }, type: QueryTypes.SELECT },
  );
  for (const row of rows) counts.set(row.id, { knowledgeSources: Number(row.knowledge_sources), conversations: Number(row.conversations) });
  return counts;
}

export const countsOfChatbot = async (chatbotId: number): Promise<ChatbotCounts> => (await countsOf([chatbotId])).get(chatbotId)!;

/**
 * The chatbot behind a widget key, with its workspace. A disabled chatbot answers exactly
 * like an unknown key (404), and so does one whose workspace is suspended.
 */
export async function findWidgetChatbot(publicKey: string): Promise<Chatbot & { company: Company }> {
  const chatbot = await Chatbot.findOne({ where: { publicKey, isActive: true }, include: [{ model: Company, as: 'company' }] });
  if (!chatbot?.company || chatbot.company.suspendedAt) throw notFound('Chatbot');
  return chatbot as Chatbot & { company: Company };
}
