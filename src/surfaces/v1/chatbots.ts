import { Router } from 'express';
import { authOf } from '../../http/authenticate';
import { countKnowledgeSources, findChatbot, listChatbots } from '../../domain/chatbots/findChatbot';
import { presentV1ChatbotDetail, presentV1ChatbotListItem } from '../../presenters/chatbot';

export function chatbotRoutes(): Router {
  const router = Router();

  router.get('/chatbots', async (req, res) => {
    const chatbots = await listChatbots(authOf(req).company.id);
    res.json({ data: chatbots.map(presentV1ChatbotListItem) });
  });

  router.get('/chatbots/:key', async (req, res) => {
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    res.json({ data: presentV1ChatbotDetail(chatbot, await countKnowledgeSources(chatbot.id)) });
  });

  return router;
}
