import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { loadActiveConversation } from '../../domain/inbox/activeConversation';
import { INBOX_FILTERS, type InboxFilter } from '../../domain/inbox/groups';
import { inboxTotals, LIST_LIMIT, listInbox } from '../../domain/inbox/listInbox';
import { conversationNamed } from '../../domain/conversations/findConversation';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { authOf, type AuthContext } from '../../http/authenticate';
import { parse } from '../../http/validate';
import { presentActiveConversation, presentInboxItem, type InboxClock } from '../../presenters/inbox';

export const inboxQuery = z.object({
  filter: z.enum(INBOX_FILTERS).default('all'),
  conversation: z.string().max(100).optional(),
});

/** The live inbox: one filtered page, counts over everything, and the open thread (which this marks read). */
export function inboxRoutes(ctx: AppContext, actors: Actors): Router {
  const router = Router();

  /**
   * Opening a thread reads the visitor's messages for every agent, so it goes through the actor (the
   * unread count is part of the conversation's state); an id that names nothing here is simply no thread.
   */
  async function activeThread(auth: AuthContext, publicId: string | undefined, clock: InboxClock) {
    const conversation = publicId ? await conversationNamed(auth.company.id, publicId) : null;
    if (!conversation) return null;
    if (conversation.unreadCount > 0) {
      await actors.ask('conversation', conversation.publicId, { type: 'markRead' });
      conversation.unreadCount = 0;
    }
    const active = await loadActiveConversation(conversation, auth.user.id);
    return active && presentActiveConversation(active, auth.user.id, clock);
  }

  async function inbox(auth: AuthContext, filter: InboxFilter | null, conversationId: string | undefined) {
    const clock = { now: new Date(), pollSeconds: pollSecondsOf(ctx.config) };
    // The thread first: once it is marked read, the list and the counts agree with it.
    const active = await activeThread(auth, conversationId, clock);
    const [rows, totals] = await Promise.all([filter ? listInbox(auth.company.id, auth.user.id, filter) : [], inboxTotals(auth.company.id, auth.user.id)]);
    const conversations = rows.map((row) => presentInboxItem(row, auth.user.id, clock));
    return { conversations, ...totals, listed: conversations.length, list_limit: LIST_LIMIT, active };
  }

  router.get('/inbox', async (req, res) => {
    const query = parse(inboxQuery, req.query);
    res.json(await inbox(authOf(req), query.filter, query.conversation));
  });

  // A deep link to one thread: the list is left empty (the app already has it), the counts are fresh.
  router.get('/conversations/:conversation', async (req: Request<{ conversation: string }>, res) => {
    res.json(await inbox(authOf(req), null, req.params.conversation));
  });

  return router;
}
