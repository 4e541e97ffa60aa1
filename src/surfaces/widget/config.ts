import { Router, type Request } from 'express';
import type { AppContext } from '../../context';
import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { rateLimit } from '../../http/rateLimit';
import { presentWidgetConfig } from '../../presenters/widget';

export function configRoutes(ctx: AppContext): Router {
  const limit = rateLimit(ctx.limiters, { name: 'widget-config', points: 60, duration: 60, by: 'ip' });
  return Router().get('/:key/config', limit, async (req: Request<{ key: string }>, res) => {
    const chatbot = await findWidgetChatbot(req.params.key);
    res.json(presentWidgetConfig(chatbot, ctx.config.appUrl, pollSecondsOf(ctx.config)));
  });
}
