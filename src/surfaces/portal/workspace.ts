import { Router } from 'express';
import type { AppContext } from '../../context';
import { snippetChatbot, widgetSnippet } from '../../domain/chatbots/widgetSnippet';
import { monthlyAnalytics } from '../../domain/usage/analytics';
import { authOf } from '../../http/authenticate';
import { presentPortalAnalytics } from '../../presenters/analytics';

/** Workspace-wide reads: this month's analytics and the embed snippet. */
export function workspaceRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/analytics', async (req, res) => {
    res.json({ data: presentPortalAnalytics(await monthlyAnalytics(authOf(req).company.id)) });
  });

  router.get('/widget-snippet', async (req, res) => {
    const chatbot = await snippetChatbot(authOf(req).company.id);
    res.json({ data: { public_key: chatbot.publicKey, snippet: widgetSnippet(ctx.config.appUrl, chatbot.publicKey) } });
  });

  return router;
}
