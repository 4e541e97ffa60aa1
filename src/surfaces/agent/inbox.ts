import { z } from 'zod';
import { loadActiveConversation } from '../../domain/inbox/activeConversation';
import { INBOX_FILTERS, type InboxFilter } from '../../domain/inbox/groups';
import { inboxTotals, LIST_LIMIT, listInbox } from '../../domain/inbox/listInbox';
import { conversationNamed } from '../../domain/conversations/findConversation';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { authOf, type AuthContext } from '../../http/authenticate';
import { inboxPage } from '../../openapi/responses/inbox';
import { presentActiveConversation, presentInboxItem, type InboxClock } from '../../presenters/inbox';
import { endpoint, type SurfaceDeps } from '../endpoint';
import { draftOnOpen } from './assistAutostart';

export const inboxQuery = z.object({
  filter: z.enum(INBOX_FILTERS).default('all'),
  conversation: z.string().max(100).optional(),
});

const SAMPLE_CONVERSATION = '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90';

/**
 * Opening a thread reads the visitor's messages for every agent, so it goes through the actor (the
 * unread count is part of the conversation's state); an id that names nothing here is simply no thread.
 * With the chatbot's `copilot_autostart` a reply is drafted for the agent in the background.
 */
async function activeThread(deps: SurfaceDeps, auth: AuthContext, publicId: string | undefined, clock: InboxClock) {
  const { actors } = deps;
  const conversation = publicId ? await conversationNamed(auth.company.id, publicId) : null;
  if (!conversation) return null;
  draftOnOpen(deps, auth, conversation.publicId);
  if (conversation.unreadCount > 0) {
    await actors.ask('conversation', conversation.publicId, { type: 'markRead' });
    conversation.unreadCount = 0;
  }
  const active = await loadActiveConversation(conversation, auth.user.id);
  return active && presentActiveConversation(active, auth.user.id, clock);
}

/** The live inbox: one filtered page, counts over everything, and the open thread (which this marks read). */
async function inbox(deps: SurfaceDeps, auth: AuthContext, filter: InboxFilter | null, conversationId: string | undefined) {
  const clock = { now: new Date(), pollSeconds: pollSecondsOf(deps.ctx.config) };
  // The thread first: once it is marked read, the list and the counts agree with it.
  const active = await activeThread(deps, auth, conversationId, clock);
  const [rows, totals] = await Promise.all([filter ? listInbox(auth.company.id, auth.user.id, filter) : [], inboxTotals(auth.company.id, auth.user.id)]);
  const conversations = rows.map((row) => presentInboxItem(row, auth.user.id, clock));
  return { conversations, ...totals, listed: conversations.length, list_limit: LIST_LIMIT, active };
}

const agent = { surface: 'agent', auth: 'agent' } as const;

export const inboxEndpoints = [
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/inbox',
    summary: 'One filtered inbox page, counts over everything, and the open thread',
    description: 'At most 60 rows (`list_limit`). `conversation=<uuid>` fills `active` and marks that thread read; an id that names nothing gives `active: null`.',
    query: { schema: inboxQuery, examples: [{ filter: 'waiting' }, { filter: 'all', conversation: SAMPLE_CONVERSATION }] },
    responses: { 200: { description: 'The inbox.', json: inboxPage } },
    handler: async (deps, req, res) => {
      const query = deps.query();
      res.json(await inbox(deps, authOf(req), query.filter, query.conversation));
    },
  }),
  // A deep link to one thread: the list is left empty (the app already has it), the counts are fresh.
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/conversations/{conversation}',
    summary: 'The inbox shape with one thread open (a deep link); marks it read',
    description: 'The list is empty; counts and groups are filled. An unknown, malformed or foreign id is a 200 with `active: null`.',
    responses: { 200: { description: 'The inbox with `active` set.', json: inboxPage } },
    never: [404],
    handler: async (deps, req, res) => {
      res.json(await inbox(deps, authOf(req), null, req.params.conversation));
    },
  }),
];

