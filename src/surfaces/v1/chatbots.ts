import { z } from 'zod';
import { authOf } from '../../http/authenticate';
import { countKnowledgeSources, findChatbot, listChatbots } from '../../domain/chatbots/findChatbot';
import { v1ChatbotDetail, v1ChatbotListItem } from '../../openapi/responses/chatbots';
import { presentV1ChatbotDetail, presentV1ChatbotListItem } from '../../presenters/chatbot';
import { endpoint } from '../endpoint';

const v1 = { surface: 'v1', auth: 'api' } as const;

export const chatbotEndpoints = [
  endpoint({
    ...v1,
    method: 'get',
    path: '/api/v1/chatbots',
    summary: "The workspace's chatbots, in creation order",
    responses: { 200: { description: 'Every chatbot of the workspace.', json: z.object({ data: z.array(v1ChatbotListItem) }) } },
    handler: async (_input, req, res) => {
      const chatbots = await listChatbots(authOf(req).company.id);
      res.json({ data: chatbots.map(presentV1ChatbotListItem) });
    },
  }),
  endpoint({
    ...v1,
    method: 'get',
    path: '/api/v1/chatbots/{key}',
    summary: 'One chatbot with its branding',
    responses: { 200: { description: 'The chatbot.', json: z.object({ data: v1ChatbotDetail }) } },
    handler: async (_input, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      res.json({ data: presentV1ChatbotDetail(chatbot, await countKnowledgeSources(chatbot.id)) });
    },
  }),
];
