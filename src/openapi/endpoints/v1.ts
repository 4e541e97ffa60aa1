import { z } from 'zod';
import { listConversationsQuery } from '../../surfaces/v1/conversations';
import { createKnowledgeBody } from '../../surfaces/v1/knowledge';
import { sendMessageBody } from '../../surfaces/v1/messages';
import { v1Company, v1User } from '../responses/accounts';
import { v1ChatbotDetail, v1ChatbotListItem } from '../responses/chatbots';
import { errorBody } from '../responses/common';
import { conversationStatus, v1ConversationDetail, v1ConversationPage } from '../responses/conversations';
import { id, uuid } from '../responses/formats';
import { v1Knowledge } from '../responses/knowledge';
import type { Endpoint } from '../registry';

const v1 = { surface: 'v1', auth: 'api' } as const;

export const V1_ENDPOINTS: Endpoint[] = [
  {
    ...v1,
    method: 'get',
    path: '/api/v1/me',
    summary: 'The token holder and their workspace',
    responses: { 200: { description: 'The user and company.', json: z.object({ user: v1User, company: v1Company }) } },
  },
  {
    ...v1,
    method: 'get',
    path: '/api/v1/chatbots',
    summary: "The workspace's chatbots, in creation order",
    responses: { 200: { description: 'Every chatbot of the workspace.', json: z.object({ data: z.array(v1ChatbotListItem) }) } },
  },
  {
    ...v1,
    method: 'get',
    path: '/api/v1/chatbots/{key}',
    summary: 'One chatbot with its branding',
    responses: { 200: { description: 'The chatbot.', json: z.object({ data: v1ChatbotDetail }) } },
  },
  {
    ...v1,
    method: 'get',
    path: '/api/v1/chatbots/{key}/conversations',
    summary: "A page of the chatbot's conversations, most recent activity first",
    description: '`per_page` above 100 is capped at 100; below 1 or not a whole number is a 422, as is `page` below 1. A page past the end has `data: []` and null `from`/`to`.',
    query: { schema: listConversationsQuery, examples: [{ per_page: '20', page: '1' }] },
    responses: { 200: { description: 'The pagination envelope.', json: v1ConversationPage } },
  },
  {
    ...v1,
    method: 'get',
    path: '/api/v1/conversations/{conversation}',
    summary: 'One conversation with its whole transcript',
    description: 'A value that is not a UUID is a 404, like a missing conversation.',
    responses: { 200: { description: 'The conversation.', json: z.object({ data: v1ConversationDetail }) } },
  },
  {
    ...v1,
    method: 'post',
    path: '/api/v1/chatbots/{key}/knowledge',
    summary: 'Add a document and train it inside the request',
    description: 'A `qa` document is its title (the question) and content (the answer, up to 50,000 characters). NUL and other control characters are replaced by spaces.',
    ability: 'manage-content',
    body: {
      schema: createKnowledgeBody,
      large: true,
      examples: [
        { title: 'Returns', content: 'You can return any item within 30 days of delivery.' },
        { title: 'Do you ship abroad?', content: 'Yes, to every EU country.', type: 'qa' },
      ],
    },
    responses: {
      201: { description: 'Trained: status `ready`.', json: z.object({ data: v1Knowledge }) },
      422: {
        description: 'Validation failed (`errors`), or the document was saved but training failed: `data` carries its id and status (`failed`, or `pending` when training was queued again).',
        json: z.union([errorBody, z.looseObject({ message: z.string(), code: z.literal('unprocessable'), data: v1Knowledge })]),
      },
    },
  },
  {
    ...v1,
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
      429: "The workspace's monthly message allowance is spent (`code: limit_reached`, `Retry-After` until the first of next month).",
      502: { description: 'The AI provider could not be reached (`provider_unreachable`); the visitor message is kept, `conversation_id` names it.', json: z.looseObject({ message: z.string(), code: z.string(), conversation_id: uuid, status: conversationStatus }) },
      503: 'The conversation is moving between servers (`actor_unavailable`, `owner_lost`, `turn_timeout`); retry after `Retry-After`.',
    },
  },
];
