import { z } from 'zod';
import { authOf } from '../../http/authenticate';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { findConversationTranscript, pageChatbotConversations } from '../../domain/conversations/v1Reads';
import { v1ConversationDetail, v1ConversationPage } from '../../openapi/responses/conversations';
import { presentV1ConversationDetail, presentV1ConversationRow } from '../../presenters/conversation';
import { presentPage } from '../../presenters/pagination';
import { endpoint } from '../endpoint';

const MAX_PER_PAGE = 100;

/** per_page above the cap is capped; below 1 or not a whole number is a 422. */
export const listConversationsQuery = z.object({
  per_page: z.coerce.number().int().min(1).transform((n) => Math.min(n, MAX_PER_PAGE)).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000_000).default(1),
});

const v1 = { surface: 'v1', auth: 'api' } as const;

export const conversationEndpoints = [
  endpoint({
    ...v1,
    method: 'get',
    path: '/api/v1/chatbots/{key}/conversations',
    summary: "A page of the chatbot's conversations, most recent activity first",
    description: '`per_page` above 100 is capped at 100; below 1 or not a whole number is a 422, as is `page` below 1. A page past the end has `data: []` and null `from`/`to`.',
    query: { schema: listConversationsQuery, examples: [{ per_page: '20', page: '1' }] },
    responses: { 200: { description: 'The pagination envelope.', json: v1ConversationPage } },
    handler: async ({ ctx, query: parseQuery }, req, res) => {
      const query = parseQuery();
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
    },
  }),
  endpoint({
    ...v1,
    method: 'get',
    path: '/api/v1/conversations/{conversation}',
    summary: 'One conversation with its whole transcript',
    description: 'A value that is not a UUID is a 404, like a missing conversation.',
    responses: { 200: { description: 'The conversation.', json: z.object({ data: v1ConversationDetail }) } },
    handler: async (_input, req, res) => {
      const { conversation, messages } = await findConversationTranscript(authOf(req).company.id, req.params.conversation);
      res.json({ data: presentV1ConversationDetail(conversation, messages) });
    },
  }),
];
