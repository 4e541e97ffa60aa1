import { z } from 'zod';
import { THEMES } from '../../domain/chatbots/branding';
import { countsOf, countsOfChatbot, findChatbot, listChatbots } from '../../domain/chatbots/findChatbot';
import { updateChatbot } from '../../domain/chatbots/updateChatbot';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { portalChatbotDetail, portalChatbotListItem, updatedPortalChatbot } from '../../openapi/responses/chatbots';
import { presentPortalChatbotDetail, presentPortalChatbotListItem, presentUpdatedPortalChatbot } from '../../presenters/chatbot';
import { endpoint } from '../endpoint';

const HEX_COLOUR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

export const updateChatbotBody = z.object({
  name: z.string().max(120).regex(NOT_BLANK, 'The name field is required.'),
  persona: z.string().max(2000).optional(),
  instructions: z.string().max(4000).optional(),
  welcome_message: z.string().max(300).optional(),
  is_active: z.boolean().optional(),
  primary_color: z.string().max(9).regex(HEX_COLOUR, 'The primary color must be a hex colour like #2563eb.').optional(),
  launcher_text: z.string().max(40).optional(),
  position: z.enum(['left', 'right']).optional(),
  theme: z.enum(THEMES).optional(),
});

const portal = { surface: 'portal', auth: 'portal' } as const;

export const chatbotEndpoints = [
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/chatbots',
    summary: "The workspace's chatbots, in creation order",
    responses: { 200: { description: 'Every chatbot with its counts.', json: z.object({ data: z.array(portalChatbotListItem) }) } },
    handler: async (_input, req, res) => {
      const chatbots = await listChatbots(authOf(req).company.id);
      const counts = await countsOf(chatbots.map((chatbot) => chatbot.id));
      res.json({ data: chatbots.map((chatbot) => presentPortalChatbotListItem(chatbot, counts.get(chatbot.id)!)) });
    },
  }),
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/chatbots/{key}',
    summary: 'One chatbot with its settings and branding',
    responses: { 200: { description: 'The chatbot.', json: z.object({ data: portalChatbotDetail }) } },
    handler: async (_input, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      res.json({ data: presentPortalChatbotDetail(chatbot, await countsOfChatbot(chatbot.id)) });
    },
  }),
  endpoint({
    ...portal,
    method: 'put',
    path: '/api/portal/chatbots/{key}',
    summary: "Update a chatbot's settings and four branding fields",
    description: '`name` is required on every call. Omitted fields keep their value; branding fields are merged over the stored ones; an empty `welcome_message` resets it to the default greeting. `provider`, `model` and unknown fields are ignored.',
    ability: 'manage-chatbots',
    body: {
      schema: updateChatbotBody,
      examples: [
        { name: 'Support', persona: 'Friendly and brief.', welcome_message: 'Hello!', is_active: true, primary_color: '#2563eb', launcher_text: 'Chat', position: 'left', theme: 'ocean' },
      ],
    },
    responses: { 200: { description: 'The chatbot, with the reduced branding object.', json: z.object({ data: updatedPortalChatbot }) } },
    handler: async ({ body: parseBody }, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      const body = parseBody();
      const { primary_color, launcher_text, position, theme } = body;
      await updateChatbot(chatbot, {
        name: body.name,
        persona: body.persona,
        instructions: body.instructions,
        welcomeMessage: body.welcome_message,
        isActive: body.is_active,
        branding: { primary_color, launcher_text, position, theme },
      });
      res.json({ data: presentUpdatedPortalChatbot(chatbot, await countsOfChatbot(chatbot.id)) });
    },
  }),
];
