import { z } from 'zod';
import { countsOf, countsOfChatbot, findChatbot, listChatbots } from '../../domain/chatbots/findChatbot';
import { brandingPatch, chatbotRules, prechatPatch } from '../../domain/chatbots/settingsRules';
import { updateChatbot } from '../../domain/chatbots/updateChatbot';
import { authOf } from '../../http/authenticate';
import { portalChatbotDetail, portalChatbotListItem, updatedPortalChatbot } from '../../openapi/responses/chatbots';
import { presentPortalChatbotDetail, presentPortalChatbotListItem, presentUpdatedPortalChatbot } from '../../presenters/chatbot';
import { endpoint } from '../endpoint';

const IGNORED = 'ignored: the portal cannot change the provider or the model';

/** SPEC's fields, and as an extension every branding field, `role`, `prechat` and `identity_required`; anything else is refused. */
export const updateChatbotBody = z.strictObject({
  name: chatbotRules.name,
  persona: chatbotRules.persona.optional(),
  instructions: chatbotRules.instructions.optional(),
  welcome_message: chatbotRules.welcome_message.optional(),
  is_active: z.boolean().optional(),
  role: chatbotRules.role.optional(),
  prechat: prechatPatch.optional(),
  identity_required: z.boolean().optional().describe('the widget must send a verified identity token before its first message'),
  provider: z.string().max(120).optional().describe(IGNORED),
  model: z.string().max(120).optional().describe(IGNORED),
  ...brandingPatch.shape,
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
    summary: "Update a chatbot's settings and branding",
    description:
      '`name` is required on every call. Omitted fields keep their value; branding fields (every field of the branding object, sent at the top level) are merged over the stored ones, `proactive` and `prechat` field by field; an empty `welcome_message` resets it to the default greeting. `provider` and `model` are ignored; any other unknown field is refused (422 naming it). On any error nothing is saved. The answer shows the reduced branding object; `GET` shows all of it.',
    ability: 'manage-chatbots',
    body: {
      schema: updateChatbotBody,
      examples: [
        { name: 'Support', persona: 'Friendly and brief.', welcome_message: 'Hello!', is_active: true, primary_color: '#2563eb', launcher_text: 'Chat', position: 'left', theme: 'ocean' },
        {
          name: 'Sales',
          role: 'Sales assistant',
          layout: 'compact',
          launcher: 'tab',
          quick_replies: ['Pricing', 'Talk to a human'],
          agent_avatars: ['https://example.com/ann.png'],
          logo_url: 'https://example.com/logo.png',
          language: 'fr',
          recommend_mode: 'on_request',
          copilot_autostart: true,
          proactive: { enabled: true, message: 'Need a hand?', delay: 5, frequency: 'once_per_day' },
          prechat: { enabled: true, fields: [{ field: 'email', label: 'Email', type: 'email', required: true }] },
          identity_required: false,
        },
      ],
    },
    responses: { 200: { description: 'The chatbot, with the reduced branding object.', json: z.object({ data: updatedPortalChatbot }) } },
    handler: async ({ ctx, body: parseBody }, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      const { name, persona, instructions, welcome_message, is_active, role, prechat, identity_required, provider: _provider, model: _model, ...branding } = parseBody();
      await updateChatbot(
        chatbot,
        { name, persona, instructions, welcomeMessage: welcome_message, isActive: is_active, role, prechat, identityRequired: identity_required, branding },
        ctx.secrets,
      );
      res.json({ data: presentUpdatedPortalChatbot(chatbot, await countsOfChatbot(chatbot.id)) });
    },
  }),
];
