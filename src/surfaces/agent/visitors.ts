import { z } from 'zod';
import { visitorActorId } from '../../actors/visitor/protocol';
import { inOpenConversation } from '../../domain/conversations/openConversation';
import { listLiveVisitors, liveVisitorsEnabled } from '../../domain/visitors/liveVisitors';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { notFound, unprocessable, validationFailed } from '../../errors';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { Chatbot, Visitor } from '../../models';
import { invited, liveVisitors } from '../../openapi/responses/agent';
import { presentLiveVisitor } from '../../presenters/agent';
import { presentSentMessage } from '../../presenters/message';
import { endpoint } from '../endpoint';

export const listQuery = z.object({ limit: z.string().optional() });
export const inviteBody = z.object({
  message: z.string().max(2000).regex(NOT_BLANK, 'The message field must not be empty or only whitespace.'),
  chatbot_id: z.number().int().positive().optional(),
});

/** `limit` is clamped to 1..200, default 100; anything unreadable is the default. */
function clampLimit(raw: string | undefined): number {
  const value = raw === undefined ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(value) ? Math.min(200, Math.max(1, value)) : 100;
}

const agent = { surface: 'agent', auth: 'agent' } as const;

/** Live visitors and invites: who is browsing the workspace's sites now, and starting a chat with one of them. */
export const visitorEndpoints = [
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/visitors',
    summary: 'Everyone browsing the workspace’s sites now (live visitors)',
    description: '`limit` is clamped to 1..200 (default 100; an unreadable value counts as the default).',
    query: { schema: listQuery, examples: [{ limit: '50' }] },
    responses: { 200: { description: 'The live list.', json: liveVisitors } },
    handler: async ({ ctx, query }, req, res) => {
      const pollSeconds = pollSecondsOf(ctx.config);
      const { company } = authOf(req);
      const limit = clampLimit(query().limit);
      const [enabled, live] = await Promise.all([liveVisitorsEnabled(company.id), listLiveVisitors(company.id, pollSeconds, limit)]);
      res.json({
        enabled,
        poll_seconds: pollSeconds,
        visitors: live.visitors.map(presentLiveVisitor),
        total: live.total,
      });
    },
  }),
  endpoint({
    ...agent,
    ability: 'handle-conversations',
    method: 'post',
    path: '/api/agent/visitors/{visitor}/invite',
    summary: 'Start a chat with a browsing visitor',
    description: 'The message goes into the visitor’s open conversation with the sending chatbot (200) or a new one held by an agent (201); the widget gets it on its next heartbeat.',
    limit: { name: 'agent-invite', points: 30, seconds: 60, by: 'user' },
    body: { schema: inviteBody, examples: [{ message: 'Hi! Can I help you find the right size?' }, { message: 'Hello from sales.', chatbot_id: 1 }] },
    responses: {
      200: { description: 'Sent into the open conversation.', json: invited },
      201: { description: 'Sent into a new conversation.', json: invited },
      409: 'The visitor has left the site (`visitor_left`).',
      422: '`chatbot_id` is not an active chatbot of the workspace, or the workspace has no active chatbot.',
      500: 'The chat could not be started; nothing was saved, a retry is safe.',
    },
    handler: async ({ ctx, actors, body: parseBody }, req, res) => {
      const pollSeconds = pollSecondsOf(ctx.config);
      const { user, company } = authOf(req);
      const visitorKey = req.params.visitor.slice(0, 100).trim();
      if (!visitorKey) throw notFound('Visitor');
      const body = parseBody();
      const visitor = await Visitor.findOne({ where: { companyId: company.id, visitorKey }, attributes: ['chatbotId'] });
      if (!visitor) throw notFound('Visitor');
      const chatbotId = await senderOf(company.id, body.chatbot_id, visitor.chatbotId);
      // The visitor's actor decides (is the visitor still here, which conversation), the conversation's actor writes.
      const { conversationId } = await actors.ask('visitor', visitorActorId(company.id, visitorKey), { type: 'inviteConversation', chatbotId });
      const invite = { type: 'invite' as const, userId: user.id, chatbotId, visitorKey, text: body.message };
      const reply = await inOpenConversation(conversationId, (id) => actors.ask('conversation', id, invite));
      res.status(reply.created ? 201 : 200).json({
        conversation_id: reply.conversationId,
        created: reply.created,
        delivery_within_seconds: pollSeconds,
        message: presentSentMessage(reply.message),
      });
    },
  }),
];

/** The chatbot the invite speaks as: the one asked for, else the visitor's own, else any active one. */
async function senderOf(companyId: number, requested: number | undefined, visitorsOwn: number | null): Promise<number> {
  const active = (id: number) => Chatbot.findOne({ where: { id, companyId, isActive: true }, attributes: ['id'] });
  if (requested !== undefined) {
    if (!(await active(requested))) throw validationFailed({ chatbot_id: ['The selected chatbot is not an active chatbot of this workspace.'] });
    return requested;
  }
  const chosen = (visitorsOwn !== null && (await active(visitorsOwn))) || (await Chatbot.findOne({ where: { companyId, isActive: true }, order: [['id', 'ASC']], attributes: ['id'] }));
  if (!chosen) throw unprocessable('This workspace has no active chatbot to send the invitation from.');
  return chosen.id;
}
