import { z } from 'zod';
import { INBOX_FILTERS } from '../../domain/inbox/groups';
import { CURSOR_PATTERN } from '../../domain/inbox/inboxCursor';
import { SEARCH_MAX_LENGTH, SEARCH_MIN_LENGTH } from '../../domain/inbox/inboxSearch';
import { LIST_LIMIT, type InboxListing } from '../../domain/inbox/listInbox';
import { readInbox, type InboxRead } from '../../domain/inbox/readInbox';
import { isConversationId } from '../../domain/conversations/publicId';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { authOf, type AuthContext } from '../../http/authenticate';
import { inboxPage } from '../../openapi/responses/inbox';
import { presentActiveConversation, presentInboxItem } from '../../presenters/inbox';
import { endpoint, type SurfaceDeps } from '../endpoint';
import { draftOnOpen } from './assistAutostart';

export const inboxQuery = z.object({
  filter: z.enum(INBOX_FILTERS).default('all'),
  conversation: z.string().max(100).optional(),
  q: z
    .string()
    .min(SEARCH_MIN_LENGTH)
    .max(SEARCH_MAX_LENGTH)
    .optional()
    .describe(`Only conversations whose visitor name, visitor email or message text contains this (any case; at least ${SEARCH_MIN_LENGTH} characters).`),
  before: z.string().regex(CURSOR_PATTERN).optional().describe('The `next_cursor` of the previous page: the page after it. Opaque.'),
});

const SAMPLE_CONVERSATION = '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90';
const SAMPLE_CURSOR = 'AAYnaumiLAAAAAAAAAAwOQ';

/** The first read of a response: the caller (authenticated with it, or before it) and the inbox. */
export type FirstRead = (publicId: string | null) => Promise<{ auth: AuthContext; read: InboxRead }>;

/**
 * The page, the counts and the open thread, read together. Opening a thread reads the visitor's
 * messages for every agent, so an unread one is marked read through its actor (the unread count is
 * part of the conversation's state) and the inbox is read again: the thread then shows what was
 * marked read, and the list and the counts agree with it. An id that names nothing here is no thread.
 */
async function readOpening(deps: SurfaceDeps, first: FirstRead, listing: InboxListing | null, publicId: string | null) {
  const [{ auth, read }, watchers] = await Promise.all([first(publicId), publicId ? deps.watchers.of(publicId) : []]);
  if (!read.thread || read.thread.conversation.unreadCount === 0) return { auth, read, watchers };
  const { company, user } = auth;
  await deps.actors.ask('conversation', read.thread.conversation.publicId, { type: 'markRead', userId: user.id });
  return { auth, read: await readInbox(company.id, user.id, listing, publicId), watchers };
}

/**
 * The live inbox: one page of the list (none for a deep link), counts over everything whatever the
 * page or search, and the open thread (which this marks read). With the chatbot's
 * `copilot_autostart` a reply is drafted for the agent in the background. `first` makes the first
 * read (src/surfaces/agent/leanInbox.ts checks the token in it).
 */
export async function answerInbox(deps: SurfaceDeps, first: FirstRead, listing: InboxListing | null, conversationId: string | undefined) {
  const clock = { now: new Date(), pollSeconds: pollSecondsOf(deps.ctx.config) };
  const publicId = conversationId !== undefined && isConversationId(conversationId) ? conversationId : null;
  const { auth, read, watchers } = await readOpening(deps, first, listing, publicId);
  const { thread, counts, groups } = read;
  if (thread) draftOnOpen(deps, auth, thread.conversation.publicId, thread.chatbot);
  const conversations = read.rows.map((row) => presentInboxItem(row, auth.user.id, clock));
  return {
    conversations,
    counts,
    groups,
    listed: conversations.length,
    list_limit: LIST_LIMIT,
    next_cursor: read.nextCursor,
    active: thread && presentActiveConversation(thread, watchers, auth.user.id, clock),
  };
}

/** The inbox of a caller the surface has authenticated. */
function inbox(deps: SurfaceDeps, auth: AuthContext, listing: InboxListing | null, conversationId: string | undefined) {
  return answerInbox(deps, async (publicId) => ({ auth, read: await readInbox(auth.company.id, auth.user.id, listing, publicId) }), listing, conversationId);
}

const agent = { surface: 'agent', auth: 'agent' } as const;

/** `GET /api/agent/inbox`, also answered on a lean path (src/surfaces/agent/leanInbox.ts). */
export const inboxEndpoint = endpoint({
  ...agent,
  method: 'get',
  path: '/api/agent/inbox',
  summary: 'One filtered inbox page, counts over everything, and the open thread',
  description:
    'At most 60 rows (`list_limit`), newest activity first; `next_cursor`, passed back as `before`, gives the next page (null at the end). ' +
    '`q` narrows the list, never `counts` or `groups`. `conversation=<uuid>` fills `active` and marks that thread read; an id that names nothing gives `active: null`.',
  query: {
    schema: inboxQuery,
    examples: [{ filter: 'waiting' }, { filter: 'all', conversation: SAMPLE_CONVERSATION }, { filter: 'all', q: 'order 1042' }, { filter: 'all', before: SAMPLE_CURSOR }],
  },
  responses: { 200: { description: 'The inbox.', json: inboxPage } },
  handler: async (deps, req, res) => {
    const { filter, q, before, conversation } = deps.query();
    res.json(await inbox(deps, authOf(req), { filter, q, before }, conversation));
  },
});

export const inboxEndpoints = [
  inboxEndpoint,
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

