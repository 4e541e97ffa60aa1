import { heartbeatBody } from '../../surfaces/widget/heartbeat';
import { VISITOR_HEADER } from '../../surfaces/widget/conversation';
import { conversationBody, stateQuery, streamBody } from '../../surfaces/widget/schemas';
import { visitorId } from '../../http/visitorFields';
import { conversationView } from '../responses/conversations';
import { conversationState, heartbeatAnswer, latestState, resetAnswer, streamEvents, widgetConfig } from '../responses/widget';
import type { Endpoint } from '../registry';

const widget = { surface: 'widget', auth: 'none' } as const;
const perIp = (points: number, sharedWith?: string) => ({ points, seconds: 60, by: 'ip' as const, ...(sharedWith && { sharedWith }) });

const VISITOR = 'visitor-3f9a1c';
const CONVERSATION = '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90';
/** The state reads take the visitor id in a header too, which keeps it out of URLs and logs. */
const visitorHeader = [
  {
    name: VISITOR_HEADER,
    description: 'The visitor id, instead of the `visitor_id` parameter (preferred: a header stays out of URLs and logs). One of the two is required; both with different values is a 422.',
    schema: visitorId,
    replaces: 'visitor_id',
  },
];
const noChatbot = 'No active chatbot has that key (unknown key, disabled chatbot or suspended workspace).';
const notTheirs = 'No active chatbot has that key, or the conversation is not this visitor’s on this chatbot.';

export const WIDGET_ENDPOINTS: Endpoint[] = [
  {
    ...widget,
    method: 'get',
    path: '/widget/{key}/config',
    summary: "The chatbot's public settings: branding, pre-chat form, realtime connection",
    limit: perIp(60),
    responses: { 200: { description: 'The configuration.', json: widgetConfig }, 404: noChatbot },
  },
  {
    ...widget,
    method: 'post',
    path: '/widget/{key}/stream',
    summary: 'Send a visitor message and stream the reply (server-sent events)',
    description:
      'Events: `meta` once the message is stored, any number of `delta`, `recommendations` when the store has matching products, then `done` or `error`. A rejection before the stream starts is an ordinary JSON error. `client_id` makes a retry safe.',
    limit: perIp(20),
    body: {
      schema: streamBody,
      examples: [
        { visitor_id: VISITOR, message: 'Do you ship to Canada?' },
        { visitor_id: VISITOR, message: 'And to Mexico?', client_id: 'm-2', meta: { page_url: 'https://shop.example/faq', visitor: { name: 'Ann', email: 'ann@example.com' } } },
      ],
    },
    responses: {
      200: { description: 'The reply as `text/event-stream`.', media: 'text/event-stream', events: streamEvents },
      404: notTheirs,
      422: 'Validation failed, or the chatbot needs an identity token and none (or an invalid one) was sent (`errors.identity`).',
      429: 'The route limit, or the monthly allowance is spent (`limit_reached`); nothing was stored.',
      503: 'The conversation is moving between servers (`actor_unavailable`); retry after `Retry-After`.',
    },
  },
  {
    ...widget,
    method: 'get',
    path: '/widget/{key}/conversation',
    summary: "The visitor's latest conversation with this chatbot",
    limit: perIp(120, 'GET /widget/{key}/conversations/{conversation}'),
    query: { schema: stateQuery, examples: [{ visitor_id: VISITOR }] },
    headers: visitorHeader,
    responses: { 200: { description: 'Its state and every message.', json: latestState }, 404: `${noChatbot} Also when the visitor has no conversation.` },
  },
  {
    ...widget,
    method: 'get',
    path: '/widget/{key}/conversations/{conversation}',
    summary: 'One conversation of the visitor: state and messages after `after` (gap-free catch-up)',
    limit: perIp(120, 'GET /widget/{key}/conversation'),
    query: { schema: stateQuery, examples: [{ visitor_id: VISITOR, after: '0' }] },
    headers: visitorHeader,
    responses: { 200: { description: 'The state and the messages after `after`.', json: conversationState }, 404: notTheirs },
  },
  {
    ...widget,
    method: 'post',
    path: '/widget/{key}/chat/reset',
    summary: "Close the visitor's conversation (idempotent); the widget then opens a new one",
    limit: perIp(30),
    body: { schema: conversationBody, examples: [{ visitor_id: VISITOR, conversation_id: CONVERSATION }] },
    responses: { 200: { description: 'Closed (the same answer on repeats).', json: resetAnswer }, 404: notTheirs },
  },
  {
    ...widget,
    method: 'post',
    path: '/widget/{key}/handoff',
    summary: 'Ask for a person',
    limit: perIp(30),
    body: { schema: conversationBody, examples: [{ visitor_id: VISITOR, conversation_id: CONVERSATION }] },
    responses: { 200: { description: 'Where the conversation stands now.', json: conversationView }, 404: notTheirs },
  },
  {
    ...widget,
    method: 'post',
    path: '/widget/{key}/heartbeat',
    summary: 'The widget’s beat every `poll_seconds`: presence, page, and waiting agent messages',
    description: 'A visitor with no heartbeat for 2 x poll_seconds has left the site. A `conversation_id` that is not the visitor’s is ignored.',
    limit: perIp(240),
    body: {
      schema: heartbeatBody,
      examples: [{ visitor_id: VISITOR, url: 'https://shop.example/shoes', title: 'Shoes', referrer: '', conversation_id: null }],
    },
    responses: { 200: { description: 'The interval, the conversation to show and waiting messages.', json: heartbeatAnswer }, 404: noChatbot },
  },
];
