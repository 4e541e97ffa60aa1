import { Router, type Request } from 'express';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { latestVisitorConversation, messagesAfter, visitorConversation, type VisitorOwner } from '../../domain/conversations/widgetReads';
import { smallJsonBody } from '../../http/jsonBody';
import { rateLimit } from '../../http/rateLimit';
import { parse } from '../../http/validate';
import { presentConversationView, presentWidgetState } from '../../presenters/widget';
import { conversationBody, stateQuery } from './schemas';

/** The visitor's own conversation: the two state reads, reset and handoff. */
export function conversationRoutes(ctx: AppContext, actors: Actors): Router {
  const router = Router();
  const limit = (name: string, points: number) => rateLimit(ctx.limiters, { name, points, duration: 60, by: 'ip' });
  // One budget for both state reads, whichever store keeps the counters.
  const stateLimit = limit('widget-state', 120);

  router.get('/:key/conversation', stateLimit, async (req: Request<{ key: string }>, res) => {
    const chatbot = await findWidgetChatbot(req.params.key);
    const query = parse(stateQuery, req.query);
    const conversation = await latestVisitorConversation(ownerOf(chatbot.id, query.visitor_id));
    const state = presentWidgetState(conversation, await messagesAfter(conversation.id), chatbot.company.firstResponseTargetSeconds);
    res.json({ conversation_id: conversation.publicId, ...state });
  });

  router.get('/:key/conversations/:conversation', stateLimit, async (req: Request<{ key: string; conversation: string }>, res) => {
    const chatbot = await findWidgetChatbot(req.params.key);
    const query = parse(stateQuery, req.query);
    const conversation = await visitorConversation(ownerOf(chatbot.id, query.visitor_id), req.params.conversation);
    res.json(presentWidgetState(conversation, await messagesAfter(conversation.id, query.after), chatbot.company.firstResponseTargetSeconds));
  });

  router.post('/:key/chat/reset', limit('widget-reset', 30), smallJsonBody, async (req: Request<{ key: string }>, res) => {
    const chatbot = await findWidgetChatbot(req.params.key);
    const body = parse(conversationBody, req.body);
    const owner = ownerOf(chatbot.id, body.visitor_id);
    await visitorConversation(owner, body.conversation_id);
    const closed = await actors.ask('conversation', body.conversation_id, { type: 'reset', ...owner });
    res.json({ closed: closed.closed, conversation_id: closed.conversationId });
  });

  router.post('/:key/handoff', limit('widget-handoff', 30), smallJsonBody, async (req: Request<{ key: string }>, res) => {
    const chatbot = await findWidgetChatbot(req.params.key);
    const body = parse(conversationBody, req.body);
    const owner = ownerOf(chatbot.id, body.visitor_id);
    await visitorConversation(owner, body.conversation_id);
    const view = await actors.ask('conversation', body.conversation_id, { type: 'requestHandoff', ...owner });
    res.json(presentConversationView(view));
  });

  return router;
}

const ownerOf = (chatbotId: number, visitorId: string): VisitorOwner => ({ chatbotId, visitorKey: visitorId.trim() });

