import { Router, type Request } from 'express';
import { z } from 'zod';
import { visitorActorId } from '../../actors/visitor/protocol';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { inOpenConversation } from '../../domain/conversations/openConversation';
import { listLiveVisitors, liveVisitorsEnabled } from '../../domain/visitors/liveVisitors';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { notFound, unprocessable, validationFailed } from '../../errors';
import { authOf, requireAbility } from '../../http/authenticate';
import { rateLimit } from '../../http/rateLimit';
import { notBlank, parse } from '../../http/validate';
import { Chatbot, Visitor } from '../../models';
import { displayTime } from '../../presenters/displayTime';
import { presentSentMessage } from '../../presenters/message';

export const listQuery = z.object({ limit: z.string().optional() });
export const inviteBody = z.object({
  message: z.string().max(2000).refine(notBlank, 'The message field must not be empty or only whitespace.'),
  chatbot_id: z.number().int().positive().optional(),
});

/** `limit` is clamped to 1..200, default 100; anything unreadable is the default. */
function clampLimit(raw: string | undefined): number {
  const value = raw === undefined ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(value) ? Math.min(200, Math.max(1, value)) : 100;
}

/** Live visitors and invites: who is browsing the workspace's sites now, and starting a chat with one of them. */
export function visitorRoutes(ctx: AppContext, actors: Actors): Router {
  const router = Router();
  const pollSeconds = pollSecondsOf(ctx.config);

  router.get('/visitors', async (req, res) => {
    const { company } = authOf(req);
    const limit = clampLimit(parse(listQuery, req.query).limit);
    const [enabled, live] = await Promise.all([liveVisitorsEnabled(company.id), listLiveVisitors(company.id, pollSeconds, limit)]);
    res.json({
      enabled,
      poll_seconds: pollSeconds,
      visitors: live.visitors.map((v) => ({
        id: v.id,
        chatbot: v.chatbot,
        chatbot_id: v.chatbot_id,
        page: v.page ?? '',
        title: v.title ?? '',
        referrer: v.referrer ?? '',
        country: v.country ?? '',
        device: v.device ?? '',
        browser: v.browser ?? '',
        os: v.os ?? '',
        page_views: v.page_views,
        first_seen: displayTime(new Date(v.first_seen_at)),
        last_seen: displayTime(new Date(v.last_seen_at)),
        conversation_id: v.conversation_id,
        online: true,
      })),
      total: live.total,
    });
  });

  router.post(
    '/visitors/:visitor/invite',
    requireAbility('handle-conversations'),
    rateLimit(ctx.limiters, { name: 'agent-invite', points: 30, duration: 60, by: 'user' }),
    async (req: Request<{ visitor: string }>, res) => {
      const { user, company } = authOf(req);
      const visitorKey = req.params.visitor.slice(0, 100).trim();
      if (!visitorKey) throw notFound('Visitor');
      const body = parse(inviteBody, req.body);
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
  );

  return router;
}

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
