import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { authOf } from '../../http/authenticate';
import { parse } from '../../http/validate';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { findConversationTranscript, pageChatbotConversations } from '../../domain/conversations/v1Reads';
import { presentV1ConversationDetail, presentV1ConversationRow } from '../../presenters/conversation';
import { presentPage } from '../../presenters/pagination';

const MAX_PER_PAGE = 100;

/** per_page above the cap is capped; below 1 or not a whole number is a 422. */
export const listConversationsQuery = z.object({
  per_page: z.coerce.number().int().min(1).transform((n) => Math.min(n, MAX_PER_PAGE)).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000_000).default(1),
});

export function conversationRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/chatbots/:key/conversations', async (req, res) => {
    const query = parse(listConversationsQuery, req.query);
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    const perPage = query.per_page ?? 20;
    const { rows, total } = await pageChatbotConversations(chatbot.id, { offset: (query.page - 1) * perPage, limit: perPage });
    res.json(
      presentPage(rows.map(presentV1ConversationRow), {
        current: query.page,
        perPage,
        total,
        path: `${ctx.config.appUrl}/api/v1/chatbots/${encodeURIComponent(chatbot.publicKey)}/conversations`,
        keepPerPage: query.per_page !== undefined,
      }),
    );
  });

  router.get('/conversations/:conversation', async (req, res) => {
    const { conversation, messages } = await findConversationTranscript(authOf(req).company.id, req.params.conversation);
    res.json({ data: presentV1ConversationDetail(conversation, messages) });
  });

  return router;
}
