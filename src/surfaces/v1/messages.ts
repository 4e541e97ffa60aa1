import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { inOpenConversation } from '../../domain/conversations/openConversation';
import { latestOpenConversation } from '../../domain/conversations/visitorConversations';
import { assertAllowance } from '../../domain/usage/allowance';
import { AppError } from '../../errors';
import { authOf, requireAbility } from '../../http/authenticate';
import { parse } from '../../http/validate';
import { contextMeta, visitorId, visitorMessage } from '../../http/visitorFields';
import { ANSWER_TIMEOUT_MS } from '../../actors/conversation/behaviour';

export const sendMessageBody = z.object({
  message: visitorMessage,
  visitor_id: visitorId,
  conversation_id: z.uuid().optional(),
  meta: contextMeta.optional(),
});

/** Send message: the same conversation actor as the widget, answered whole in one JSON response. */
export function messageRoutes(actors: Actors): Router {
  return Router().post('/chatbots/:key/messages', requireAbility('handle-conversations'), async (req: Request<{ key: string }>, res) => {
    const { company } = authOf(req);
    const chatbot = await findChatbot(company.id, req.params.key);
    const body = parse(sendMessageBody, req.body);
    await assertAllowance(company);
    const message = { type: 'visitorMessage' as const, chatbotId: chatbot.id, visitorKey: body.visitor_id.trim(), text: body.message, channel: 'api' as const, meta: body.meta };
    // Without a conversation id the message starts a new one. A visitor has one open conversation per
    // chatbot, so the open one closes first, as the widget's "new chat" closes it; should another
    // request open one meanwhile, the message goes there.
    if (!body.conversation_id) {
      const open = await latestOpenConversation({ chatbotId: chatbot.id, visitorKey: message.visitorKey, companyId: company.id });
      if (open) await actors.ask('conversation', open, { type: 'reset', chatbotId: chatbot.id, visitorKey: message.visitorKey });
    }
    const reply = await inOpenConversation(body.conversation_id ?? randomUUID(), (id, retry) =>
      actors.ask('conversation', id, { ...message, create: !body.conversation_id && !retry }, { timeoutMs: ANSWER_TIMEOUT_MS }),
    );
    const conversation = { conversation_id: reply.conversationId, status: reply.status };
    if (reply.outcome === 'failed') throw new AppError(reply.error.status, reply.error.code, reply.error.message, { body: conversation });
    if (reply.outcome === 'held') return void res.json({ ...conversation, reply: null, note: reply.note });
    const { answer } = reply;
    res.json({ ...conversation, reply: { id: answer.id, content: answer.content, model: answer.model, tokens_in: answer.tokensIn, tokens_out: answer.tokensOut } });
  });
}
