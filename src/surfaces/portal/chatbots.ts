import { Router, type Request } from 'express';
import { z } from 'zod';
import { THEMES } from '../../domain/chatbots/branding';
import { countsOf, countsOfChatbot, findChatbot, listChatbots } from '../../domain/chatbots/findChatbot';
import { updateChatbot } from '../../domain/chatbots/updateChatbot';
import { authOf, requireAbility } from '../../http/authenticate';
import { notBlank, parse } from '../../http/validate';
import { presentPortalChatbotDetail, presentPortalChatbotListItem, presentUpdatedPortalChatbot } from '../../presenters/chatbot';

const HEX_COLOUR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

export const updateChatbotBody = z.object({
  name: z.string().max(120).refine(notBlank, 'The name field is required.'),
  persona: z.string().max(2000).optional(),
  instructions: z.string().max(4000).optional(),
  welcome_message: z.string().max(300).optional(),
  is_active: z.boolean().optional(),
  primary_color: z.string().max(9).regex(HEX_COLOUR, 'The primary color must be a hex colour like #2563eb.').optional(),
  launcher_text: z.string().max(40).optional(),
  position: z.enum(['left', 'right']).optional(),
  theme: z.enum(THEMES).optional(),
});

export function chatbotRoutes(): Router {
  const router = Router();

  router.get('/chatbots', async (req, res) => {
    const chatbots = await listChatbots(authOf(req).company.id);
    const counts = await countsOf(chatbots.map((chatbot) => chatbot.id));
    res.json({ data: chatbots.map((chatbot) => presentPortalChatbotListItem(chatbot, counts.get(chatbot.id)!)) });
  });

  router.get('/chatbots/:key', async (req, res) => {
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    res.json({ data: presentPortalChatbotDetail(chatbot, await countsOfChatbot(chatbot.id)) });
  });

  router.put('/chatbots/:key', requireAbility('manage-chatbots'), async (req: Request<{ key: string }>, res) => {
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    const body = parse(updateChatbotBody, req.body);
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
  });

  return router;
}
