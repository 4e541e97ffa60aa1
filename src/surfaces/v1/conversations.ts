import { z } from 'zod';
import { authOf } from '../../http/authenticate';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { findConversation } from '../../domain/conversations/findConversation';
import { findConversationTranscript, pageChatbotConversations } from '../../domain/conversations/v1Reads';
import { eventsAfter } from '../../domain/webhooks/catchUp';
import { webhookEvent } from '../../openapi/responses/webhooks';
import { presentIntegrationEvent } from '../../presenters/webhookEvents';
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

/** The catch-up's position and page size; `after_seq` 0 (the default) starts at the conversation's first event. */
export const eventsQuery = z.object({
  after_seq: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
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
  endpoint({
    ...v1,
    method: 'get',
    path: '/api/v1/conversations/{conversation}/events',
    summary: "The conversation's events after a seq, oldest first: the webhook catch-up",
    description:
      'The same events, with the same bodies and ids, as webhooks deliver (docs/webhooks.md), whether or not the workspace has a webhook. `after_seq` is the last `seq` the caller has (default 0: from the start); `limit` 1..500, default 100. `next_after_seq` is the `after_seq` of the next page, or null when this page reached the newest event. `seq` rises with gaps (it counts every event of the conversation, also those integrators do not get).',
    query: { schema: eventsQuery, examples: [{ after_seq: '0', limit: '100' }] },
    responses: {
      200: {
        description: 'A page of events.',
        json: z.object({ data: z.array(webhookEvent), next_after_seq: z.int().min(0).nullable() }),
      },
    },
    handler: async ({ query }, req, res) => {
      const conversation = await findConversation(authOf(req).company.id, req.params.conversation);
      const { after_seq: afterSeq, limit } = query();
      const { events, more } = await eventsAfter(conversation, afterSeq, limit);
      res.json({ data: events.map(presentIntegrationEvent), next_after_seq: more ? Number(events.at(-1)!.seq) : null });
    },
  }),
];
