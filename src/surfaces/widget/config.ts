import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { widgetConfig } from '../../openapi/responses/widget';
import { presentWidgetConfig } from '../../presenters/widget';
import { endpoint } from '../endpoint';
import { NO_CHATBOT, perIp } from './schemas';

export const configEndpoints = [
  endpoint({
    surface: 'widget',
    auth: 'none',
    method: 'get',
    path: '/widget/{key}/config',
    summary: "The chatbot's public settings: branding, pre-chat form, realtime connection",
    limit: perIp('widget-config', 60),
    responses: { 200: { description: 'The configuration.', json: widgetConfig }, 404: NO_CHATBOT },
    handler: async ({ ctx }, req, res) => {
      const chatbot = await findWidgetChatbot(req.params.key);
      res.json(presentWidgetConfig(chatbot, ctx.config.appUrl, pollSecondsOf(ctx.config)));
    },
  }),
];
