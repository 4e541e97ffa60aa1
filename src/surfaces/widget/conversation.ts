import { ANSWER_TIMEOUT_MS } from '../../actors/conversation/behaviour';
import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { visitorMayWrite } from '../../domain/conversations/identity';
import { latestVisitorConversation, messagesAfter, visitorConversation, type VisitorOwner } from '../../domain/conversations/visitorConversations';
import { notFound } from '../../errors';
import { visitorId } from '../../http/visitorFields';
import { openElsewhere } from '../../openapi/responses/conversations';
import { conversationState, handoffAnswer, latestState, resetAnswer } from '../../openapi/responses/widget';
import { queueField } from '../../domain/routing/queue';
import { routingOf } from '../../domain/routing/settings';
import { currentView, placeInQueue } from './queuePlace';
import { isOpen, offlineNotice } from '../../domain/routing/businessHours';
import { presentConversationView, presentWidgetState } from '../../presenters/widget';
import { endpoint } from '../endpoint';
import { continueCustomerConversation, IDENTITY_HEADER, identityOf } from './customerConversation';
import { CONTINUE_HEADER, continueByLink } from './continueLink';
import { followUpsOf } from '../../domain/followup/service';
import { BLOCKED, continueToken, conversationBody, handoffBody, identityToken, NO_CHATBOT, NOT_THEIRS, perIp, SAMPLE_CONVERSATION, SAMPLE_VISITOR, stateQuery } from './schemas';

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

const identityHeader = {
  name: IDENTITY_HEADER,
  description:
    "A widget identity token (signed by the site's server). Verified, it answers the customer's latest conversation with this chatbot from any device, moved to this visitor id; without a conversation of the customer's, this visitor id's own. A bad token is a 422 on `identity`.",
  schema: identityToken,
};

const continueHeader = {
  name: CONTINUE_HEADER,
  description:
    "The token of an offline follow-up mail's link (docs/routing.md): verified, the mail's conversation moves to this visitor id and is answered. A forged, damaged or expired link is a 422 on `continue`.",
  schema: continueToken,
};

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
    summary: "The visitor's latest conversation with this chatbot (a signed-in customer's, from any device)",
    description:
      'With a verified `X-Identity` token the conversation moves to this visitor id (its catch-up, socket, handoff and reset then work here; the device it left takes it back by reading with its token again). When this visitor id has an open conversation of its own and the customer’s latest is open too, its own is answered.',
    limit: stateLimit,
    query: { schema: stateQuery, examples: [{ visitor_id: SAMPLE_VISITOR }] },
    headers: [...visitorHeader, identityHeader, continueHeader],
    responses: {
      200: { description: 'Its state and every message.', json: latestState },
      403: `${BLOCKED} (With a follow-up link.)`,
      404: `${NO_CHATBOT} Also when the visitor has no conversation, or a follow-up link's conversation is gone.`,
      409: openElsewhere,
      422: 'Validation failed, or the identity token is unsigned, wrongly signed, expired, more than 24 hours ahead or without `sub` (`errors.identity`), or the follow-up link is not valid or expired (`errors.continue`).',
      503: 'The conversation is moving between servers (`actor_unavailable`); retry after `Retry-After`.',
    },
    handler: async ({ ctx, actors, query: parseQuery }, req, res) => {
      const chatbot = await findWidgetChatbot(req.params.key);
      const query = parseQuery();
      const owner = ownerOf(chatbot.id, query.visitor_id);
      const linked = await continueByLink(req, followUpsOf(ctx).links, actors, owner);
      const sub = identityOf(req, chatbot, ctx.secrets);
      const customers = !linked && sub && (await continueCustomerConversation(actors, owner, sub));
      const named = linked ?? customers;
      const conversation = named ? await visitorConversation(owner, named) : await latestVisitorConversation(owner);
      // This device's conversation may be another customer's (a shared browser): not this one's to read.
      if (!visitorMayWrite(conversation, { ...owner, sub })) throw notFound('Conversation');
      const state = presentWidgetState(conversation, await messagesAfter(conversation.id), chatbot.company.firstResponseTargetSeconds);
      res.json({ conversation_id: conversation.publicId, ...state, ...(await queueField(conversation, routingOf(chatbot.company).mode)) });
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
      const state = presentWidgetState(conversation, await messagesAfter(conversation.id, query.after), chatbot.company.firstResponseTargetSeconds);
      res.json({ ...state, ...(await queueField(conversation, routingOf(chatbot.company).mode)) });
    },
  }),
  endpoint({
    ...widget,
    method: 'post',
    path: '/widget/{key}/chat/reset',
    summary: "Close the visitor's conversation (idempotent); the widget then opens a new one",
    limit: perIp('widget-reset', 30),
    body: { schema: conversationBody, examples: [{ visitor_id: SAMPLE_VISITOR, conversation_id: SAMPLE_CONVERSATION }] },
    responses: { 200: { description: 'Closed (the same answer on repeats).', json: resetAnswer }, 403: BLOCKED, 404: NOT_THEIRS },
    handler: async ({ actors, body }, req, res) => {
      const { owner, conversationId } = await ownConversation(req.params.key, body());
      // The close waits behind whatever the conversation is doing, an AI answer included: it gets an answer's time.
      const closed = await actors.ask('conversation', conversationId, { type: 'reset', ...owner }, { timeoutMs: ANSWER_TIMEOUT_MS });
      res.json({ closed: closed.closed, conversation_id: closed.conversationId });
    },
  }),
  endpoint({
    ...widget,
    method: 'post',
    path: '/widget/{key}/handoff',
    summary: 'Ask for a person',
    description:
      'In auto routing (docs/routing.md) the workspace router is asked at once: the answer shows the conversation assigned (`human_connected`) or waiting with its `queue_position`. Outside business hours the answer adds `offline: true` and the offline message; with `ai_after_hours` the AI keeps the conversation (nobody is asked for), without it the conversation waits for a person. `email` (the widget\'s after-hours form) is stored as the visitor\'s email first: an agent\'s reply the visitor does not see is emailed there (the offline follow-up).',
    limit: perIp('widget-handoff', 30),
    body: {
      schema: handoffBody,
      examples: [
        { visitor_id: SAMPLE_VISITOR, conversation_id: SAMPLE_CONVERSATION },
        { visitor_id: SAMPLE_VISITOR, conversation_id: SAMPLE_CONVERSATION, email: 'sam@example.com' },
      ],
    },
    responses: { 200: { description: 'Where the conversation stands now.', json: handoffAnswer }, 403: BLOCKED, 404: NOT_THEIRS, 409: openElsewhere },
    handler: async ({ actors, body: parseBody }, req, res) => {
      const body = parseBody();
      const { owner, conversationId, chatbot } = await ownConversation(req.params.key, body);
      if (body.email) await actors.ask('conversation', conversationId, { type: 'leaveEmail', ...owner, email: body.email });
      const routing = routingOf(chatbot.company);
      const open = isOpen(routing);
      // After hours with the AI allowed, nobody is asked for: the AI keeps the conversation and the widget asks for an email.
      if (!open && routing.ai_after_hours) return void res.json({ ...(await currentView(chatbot.company, conversationId)), ...offlineNotice(routing) });
      const view = await actors.ask('conversation', conversationId, { type: 'requestHandoff', ...owner });
      const closed = open ? {} : offlineNotice(routing);
      if (routing.mode !== 'auto') return void res.json({ ...presentConversationView(view), ...closed });
      const placed = await placeInQueue(actors, chatbot.company, conversationId);
      res.json({ ...presentConversationView(placed.view ?? view), queue_position: placed.queuePosition, ...closed });
    },
  }),
];

/** The visitor's own conversation named in a reset or handoff body; 404 when it is not theirs on this chatbot. */
async function ownConversation(key: string, body: { visitor_id: string; conversation_id: string }) {
  const chatbot = await findWidgetChatbot(key);
  const owner = ownerOf(chatbot.id, body.visitor_id);
  await visitorConversation(owner, body.conversation_id);
  return { owner, conversationId: body.conversation_id, chatbot };
}
