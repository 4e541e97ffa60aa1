import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { latestVisitorConversation, messagesAfter, visitorConversation, type VisitorOwner } from '../../domain/conversations/visitorConversations';
import { visitorId } from '../../http/visitorFields';
import { conversationView, openElsewhere } from '../../openapi/responses/conversations';
import { conversationState, latestState, resetAnswer } from '../../openapi/responses/widget';
import { presentConversationView, presentWidgetState } from '../../presenters/widget';
import { endpoint } from '../endpoint';
import { conversationBody, NO_CHATBOT, NOT_THEIRS, perIp, SAMPLE_CONVERSATION, SAMPLE_VISITOR, stateQuery } from './schemas';

/**
 * The header the state reads also take the visitor id in. The id is the only key to a transcript, and
 * a query string ends up in request logs, proxies' logs and browser history; a header does not. The
 * query parameter keeps working for older widgets and integrations.
 */
export const VISITOR_HEADER = 'X-Visitor-Id';

const visitorHeader = [
  {
    name: VISITOR_HEADER,
    description: 'The visitor id. The `visitor_id` parameter is still read instead (deprecated: a query string ends up in URLs and logs); both with different values is a 422.',
    schema: visitorId,
    replaces: 'visitor_id',
  },
];

const widget = { surface: 'widget', auth: 'none' } as const;
// One budget for both state reads.
const stateLimit = perIp('widget-state', 120);

const ownerOf = (chatbotId: number, visitorId: string): VisitorOwner => ({ chatbotId, visitorKey: visitorId.trim() });

/** The visitor's own conversation: the two state reads, reset and handoff. */
export const conversationEndpoints = [
  endpoint({
    ...widget,
    method: 'get',
    path: '/widget/{key}/conversation',
    summary: "The visitor's latest conversation with this chatbot",
    limit: stateLimit,
    query: { schema: stateQuery, examples: [{ visitor_id: SAMPLE_VISITOR }] },
    headers: visitorHeader,
    responses: { 200: { description: 'Its state and every message.', json: latestState }, 404: `${NO_CHATBOT} Also when the visitor has no conversation.` },
    handler: async ({ query: parseQuery }, req, res) => {
      const chatbot = await findWidgetChatbot(req.params.key);
      const query = parseQuery();
      const conversation = await latestVisitorConversation(ownerOf(chatbot.id, query.visitor_id));
      const state = presentWidgetState(conversation, await messagesAfter(conversation.id), chatbot.company.firstResponseTargetSeconds);
      res.json({ conversation_id: conversation.publicId, ...state });
    },
  }),
  endpoint({
    ...widget,
    method: 'get',
    path: '/widget/{key}/conversations/{conversation}',
    summary: 'One conversation of the visitor: state and messages after `after` (gap-free catch-up)',
    limit: stateLimit,
    query: { schema: stateQuery, examples: [{ visitor_id: SAMPLE_VISITOR, after: '0' }] },
    headers: visitorHeader,
    responses: { 200: { description: 'The state and the messages after `after`.', json: conversationState }, 404: NOT_THEIRS },
    handler: async ({ query: parseQuery }, req, res) => {
      const chatbot = await findWidgetChatbot(req.params.key);
      const query = parseQuery();
      const conversation = await visitorConversation(ownerOf(chatbot.id, query.visitor_id), req.params.conversation);
      res.json(presentWidgetState(conversation, await messagesAfter(conversation.id, query.after), chatbot.company.firstResponseTargetSeconds));
    },
  }),
  endpoint({
    ...widget,
    method: 'post',
    path: '/widget/{key}/chat/reset',
    summary: "Close the visitor's conversation (idempotent); the widget then opens a new one",
    limit: perIp('widget-reset', 30),
    body: { schema: conversationBody, examples: [{ visitor_id: SAMPLE_VISITOR, conversation_id: SAMPLE_CONVERSATION }] },
    responses: { 200: { description: 'Closed (the same answer on repeats).', json: resetAnswer }, 404: NOT_THEIRS },
    handler: async ({ actors, body }, req, res) => {
      const { owner, conversationId } = await ownConversation(req.params.key, body());
      const closed = await actors.ask('conversation', conversationId, { type: 'reset', ...owner });
      res.json({ closed: closed.closed, conversation_id: closed.conversationId });
    },
  }),
  endpoint({
    ...widget,
    method: 'post',
    path: '/widget/{key}/handoff',
    summary: 'Ask for a person',
    limit: perIp('widget-handoff', 30),
    body: { schema: conversationBody, examples: [{ visitor_id: SAMPLE_VISITOR, conversation_id: SAMPLE_CONVERSATION }] },
    responses: { 200: { description: 'Where the conversation stands now.', json: conversationView }, 404: NOT_THEIRS, 409: openElsewhere },
    handler: async ({ actors, body }, req, res) => {
      const { owner, conversationId } = await ownConversation(req.params.key, body());
      const view = await actors.ask('conversation', conversationId, { type: 'requestHandoff', ...owner });
      res.json(presentConversationView(view));
    },
  }),
];

/** The visitor's own conversation named in a reset or handoff body; 404 when it is not theirs on this chatbot. */
async function ownConversation(key: string, body: { visitor_id: string; conversation_id: string }) {
  const chatbot = await findWidgetChatbot(key);
  const owner = ownerOf(chatbot.id, body.visitor_id);
  await visitorConversation(owner, body.conversation_id);
  return { owner, conversationId: body.conversation_id };
}
