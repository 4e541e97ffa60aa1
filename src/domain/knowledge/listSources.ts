import { KnowledgeSource, type Chatbot } from '../../models';

/** A chatbot's top-level sources, newest first; crawled pages stay under their URL source. */
export function listSources(chatbot: Chatbot): Promise<KnowledgeSource[]> {
  return KnowledgeSource.findAll({
    where: { chatbotId: chatbot.id, companyId: chatbot.companyId, parentId: null },
    order: [['createdAt', 'DESC'], ['id', 'DESC']],
    attributes: { exclude: ['content', 'answer'] },
  });
}
