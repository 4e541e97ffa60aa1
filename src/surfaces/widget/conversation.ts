import { Router, type Request } from 'express';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { latestVisitorConversation, messagesAfter, visitorConversation, type VisitorOwner } from '../../domain/conversations/visitorConversations';
import { validationFailed } from '../../errors';
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
    const query = parse(stateQuery, stateInput(req));
    const conversation = await latestVisitorConversation(ownerOf(chatbot.id, query.visitor_id));
    const state = presentWidgetState(conversation, await messagesAfter(conversation.id), chatbot.company.firstResponseTargetSeconds);
    res.json({ conversation_id: conversation.publicId, ...state });
  });

  router.get('/:key/conversations/:conversation', stateLimit, async (req: Request<{ key: string; conversation: string }>, res) => {
    const chatbot = await findWidgetChatbot(req.params.key);
    const query = parse(stateQuery, stateInput(req));
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

/**
 * The header the state reads also take the visitor id in. The id is the only key to a transcript, and
 * a query string ends up in request logs, proxies' logs and browser history; a header does not.
 */
export const VISITOR_HEADER = 'X-Visitor-Id';

/**
 * The state query with the visitor id from the header when one is sent. The query parameter keeps
 * working for older widgets and integrations. Both at once with different ids is ambiguous (a proxy
 * or a script mixing two visitors), so it is refused rather than one silently winning.
 */
function stateInput(req: Request<Record<string, string>>): Record<string, unknown> {
  const query = req.query as Record<string, unknown>;
  const header = req.get(VISITOR_HEADER);
  if (header === undefined) return query;
  const inQuery = query.visitor_id;
  if (inQuery !== undefined && (typeof inQuery !== 'string' || inQuery.trim() !== header.trim())) {
    throw validationFailed({ visitor_id: [`The visitor id must be the same in the ${VISITOR_HEADER} header and the visitor_id parameter.`] });
  }
  return { ...query, visitor_id: header };
}

const ownerOf = (chatbotId: number, visitorId: string): VisitorOwner => ({ chatbotId, visitorKey: visitorId.trim() });

