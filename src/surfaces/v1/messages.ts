import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ANSWER_TIMEOUT_MS } from '../../actors/conversation/behaviour';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { inOpenConversation } from '../../domain/conversations/openConversation';
import { latestOpenConversation } from '../../domain/conversations/visitorConversations';
import { assertAllowance } from '../../domain/usage/allowance';
import { AppError } from '../../errors';
import { authOf } from '../../http/authenticate';
import { contextMeta, visitorId, visitorMessage } from '../../http/visitorFields';
import { conversationStatus, openElsewhere } from '../../openapi/responses/conversations';
import { id, uuid } from '../../openapi/responses/formats';
import { presentV1Reply } from '../../presenters/conversation';
import { endpoint } from '../endpoint';

export const sendMessageBody = z.object({
  message: visitorMessage,
  visitor_id: visitorId,
  conversation_id: z.uuid().optional(),
  meta: contextMeta.optional(),
});

/** Send message: the same conversation actor as the widget, answered whole in one JSON response. */
export const messageEndpoints = [
  endpoint({
    surface: 'v1',
    auth: 'api',
    method: 'post',
    path: '/api/v1/chatbots/{key}/messages',
    summary: 'Send a visitor message and get the whole AI reply',
    description: 'Goes through the same conversation actor as the widget. While a person holds (or has been asked for) the conversation, `reply` is null and `note` explains.',
    ability: 'handle-conversations',
    body: {
      schema: sendMessageBody,
      examples: [{ message: 'What is your returns policy?', visitor_id: 'crm-4711', meta: { plan: 'gold' } }],
    },
    responses: {
      200: {
        description: 'The reply, or null with a note while a person holds the conversation.',
        json: z.object({
          conversation_id: uuid,
          status: conversationStatus,
          reply: z.object({ id, content: z.string(), model: z.string(), tokens_in: z.int().min(0), tokens_out: z.int().min(0) }).nullable(),
          note: z.string().optional(),
        }),
      },
      403: 'The visitor is blocked on this chatbot (`blocked`): nothing was stored, and the open conversation was not closed.',
      409: {
        ...openElsewhere,
        description: 'Requests for the same visitor raced (one closing the open conversation while another opened one) and the message found no open conversation to go into; nothing was stored. Retry.',
      },
      429: "The workspace's monthly message allowance is spent (`code: limit_reached`, `Retry-After` until the first of next month), or more than 10 visitor messages in 60 s in this conversation (`flooding`, a strike; the third blocks the visitor); nothing was stored.",
      502: { description: 'The AI provider could not be reached (`provider_unreachable`); the visitor message is kept, `conversation_id` names it.', json: z.looseObject({ message: z.string(), code: z.string(), conversation_id: uuid, status: conversationStatus }) },
      503: 'The conversation is moving between servers (`actor_unavailable`, `owner_lost`, `turn_timeout`); retry after `Retry-After`.',
    },
    handler: async ({ actors, body: parseBody }, req, res) => {
      const { company } = authOf(req);
      const chatbot = await findChatbot(company.id, req.params.key);
      const body = parseBody();
      const message = { type: 'visitorMessage' as const, chatbotId: chatbot.id, visitorKey: body.visitor_id.trim(), text: body.message, channel: 'api' as const, meta: body.meta };
      // Without a conversation id the message starts a new one. A visitor has one open conversation per
      // chatbot, so the open one closes first, as the widget's "new chat" closes it; should another
      // request open one meanwhile, the message goes there.
      if (!body.conversation_id) {
        const open = await latestOpenConversation({ chatbotId: chatbot.id, visitorKey: message.visitorKey, companyId: company.id });
        if (open) {
          // The new conversation's turn checks the allowance too, but only after this close: at the limit, nothing is closed for it.
          await assertAllowance(company);
          // The close waits behind whatever that conversation is doing, an AI answer included: it gets an answer's time.
          await actors.ask('conversation', open, { type: 'reset', chatbotId: chatbot.id, visitorKey: message.visitorKey }, { timeoutMs: ANSWER_TIMEOUT_MS });
        }
      }
      const reply = await inOpenConversation(body.conversation_id ?? randomUUID(), (id, retry) =>
        actors.ask('conversation', id, { ...message, create: !body.conversation_id && !retry }, { timeoutMs: ANSWER_TIMEOUT_MS }),
      );
      const conversation = { conversation_id: reply.conversationId, status: reply.status };
      if (reply.outcome === 'failed') throw new AppError(reply.error.status, reply.error.code, reply.error.message, { body: conversation });
      if (reply.outcome === 'held') return void res.json({ ...conversation, reply: null, note: reply.note });
      res.json({ ...conversation, reply: presentV1Reply(reply.answer) });
    },
  }),
];
