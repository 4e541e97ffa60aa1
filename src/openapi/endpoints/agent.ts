import { z } from 'zod';
import { assistEndpoints } from './agentAssist';
import { pushEndpoints } from './agentPush';
import { authBody } from '../../surfaces/agent/broadcasting';
import { noteBody, replyBody, tagBody } from '../../surfaces/agent/conversations';
import { revenueBody } from '../../surfaces/agent/customerContext';
import { inboxQuery } from '../../surfaces/agent/inbox';
import { agentLoginBody } from '../../surfaces/agent/session';
import { inviteBody, listQuery } from '../../surfaces/agent/visitors';
import { messageBody } from '../responses/common';
import { agentSession, agentToken, cannedReply, customerContext, invited, lead, liveVisitors, note, replied, revenue, statusOnly } from '../responses/agent';
import { id } from '../responses/formats';
import { inboxPage, tag } from '../responses/inbox';
import type { Endpoint } from '../registry';

const agent = { surface: 'agent', auth: 'agent' } as const;
const handles = { ...agent, ability: 'handle-conversations' } as const;

const SAMPLE_CONVERSATION = '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90';

/** takeover, release, reopen: one shape, one sentence each. */
const move = (name: string, summary: string): Endpoint => ({
  ...handles,
  method: 'post',
  path: `/api/agent/conversations/{conversation}/${name}`,
  summary,
  description: 'A move that does not apply answers the current status and writes nothing.',
  responses: { 200: { description: 'The status after the move.', json: statusOnly } },
});

export const AGENT_ENDPOINTS: Endpoint[] = [
  {
    surface: 'agent',
    auth: 'none',
    method: 'post',
    path: '/api/agent/login',
    summary: 'Sign in to an agent app (owners, admins and agents)',
    description: 'Shares the login lockout with the portal login. The route limit counts before validation.',
    limit: { points: 10, seconds: 60, by: 'ip' },
    body: { schema: agentLoginBody, examples: [{ email: 'agent@example.com', password: 'correct horse battery staple', device_name: 'Pixel 8' }] },
    responses: {
      200: { description: 'An `agent` token (30 days) and the session it opens.', json: agentToken },
      401: 'Wrong password or unknown address ("These credentials do not match our records.").',
      403: 'A viewer, a suspended user or a suspended workspace.',
      429: 'Route limit, or the address is locked out (`Retry-After`).',
    },
  },
  {
    ...agent,
    method: 'post',
    path: '/api/agent/refresh',
    summary: 'Exchange a valid agent token for a fresh one (the old one stays valid until it lapses)',
    limit: { points: 6, seconds: 3600, by: 'user' },
    responses: { 200: { description: 'Same answer as login.', json: agentToken } },
  },
  { ...agent, method: 'get', path: '/api/agent/me', summary: 'The calling token and its holder', responses: { 200: { description: 'The session.', json: agentSession } } },
  { ...agent, method: 'post', path: '/api/agent/logout', summary: 'Sign out: revoke the calling token and its family (the sign-in and its refreshes)', responses: { 200: { description: 'Signed out.', json: messageBody } } },
  {
    ...agent,
    method: 'post',
    path: '/api/agent/broadcasting/auth',
    summary: 'Sign a realtime channel subscription for this socket',
    description: 'Channels: `private-company.<id>`, `private-user.<id>`, `private-conversation.<uuid>`. See docs/api.md "Realtime".',
    body: { schema: authBody, examples: [{ socket_id: 'Vx3Jk9aPq0FdAAAB', channel_name: 'private-company.1' }] },
    responses: { 200: { description: '`<key>:<hex signature>`.', json: z.object({ auth: z.string() }) }, 403: 'The token holder may not join that channel.' },
  },
  {
    ...agent,
    method: 'get',
    path: '/api/agent/inbox',
    summary: 'One filtered inbox page, counts over everything, and the open thread',
    description: 'At most 60 rows (`list_limit`). `conversation=<uuid>` fills `active` and marks that thread read; an id that names nothing gives `active: null`.',
    query: { schema: inboxQuery, examples: [{ filter: 'waiting' }, { filter: 'all', conversation: SAMPLE_CONVERSATION }] },
    responses: { 200: { description: 'The inbox.', json: inboxPage } },
  },
  {
    ...agent,
    method: 'get',
    path: '/api/agent/conversations/{conversation}',
    summary: 'The inbox shape with one thread open (a deep link); marks it read',
    description: 'The list is empty; counts and groups are filled. An unknown, malformed or foreign id is a 200 with `active: null`.',
    responses: { 200: { description: 'The inbox with `active` set.', json: inboxPage } },
    never: [404],
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/reply',
    summary: 'Reply as an agent (takes the conversation over)',
    description: 'A repeat of a `client_id` in this conversation returns the first message with `duplicate: true` and sends nothing.',
    body: { schema: replyBody, examples: [{ body: 'Happy to help! Your parcel left today.', client_id: 'b7d1c0e2' }] },
    responses: { 200: { description: 'The stored message.', json: replied } },
  },
  move('takeover', 'Take the conversation over (assigned to the caller)'),
  move('release', 'Hand the conversation back to the AI'),
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/resolve',
    summary: 'Resolve (close) the conversation',
    responses: { 200: { description: 'Closed, resolution `resolved`.', json: z.object({ status: statusOnly.shape.status, resolution: z.string().nullable() }) } },
  },
  move('reopen', 'Reopen a closed conversation (back to the AI)'),
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/notes',
    summary: 'Add an internal note (never shown to the visitor)',
    body: { schema: noteBody, examples: [{ body: 'Customer prefers email.' }] },
    responses: { 201: { description: 'The note.', json: note } },
  },
  { ...agent, method: 'get', path: '/api/agent/tags', summary: 'The workspace tag catalogue, by name', responses: { 200: { description: 'The tags.', json: z.object({ tags: z.array(tag) }) } } },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/tags',
    summary: 'Attach a catalogue tag (idempotent)',
    body: { schema: tagBody, examples: [{ tag_id: 1 }] },
    responses: { 200: { description: 'The attached tag id.', json: z.object({ attached: id }) }, 422: '`tag_id` is not an integer id of the catalogue.' },
  },
  {
    ...handles,
    method: 'delete',
    path: '/api/agent/conversations/{conversation}/tags/{tag}',
    summary: 'Detach a tag (idempotent)',
    responses: { 200: { description: 'The detached tag id.', json: z.object({ detached: id }) } },
  },
  {
    ...agent,
    method: 'get',
    path: '/api/agent/canned',
    summary: "Shared canned replies plus the caller's own, most used first",
    responses: { 200: { description: 'The canned replies.', json: z.object({ canned: z.array(cannedReply) }) } },
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/canned/{canned}/used',
    summary: 'Count one use of a canned reply',
    responses: { 200: { description: 'Counted.', json: z.object({ ok: z.literal(true) }) }, 403: "Another agent's own reply." },
  },
  {
    ...agent,
    method: 'get',
    path: '/api/agent/conversations/{conversation}/customer-context',
    summary: 'What the connected store (Shopify) and payments (Stripe) know about the visitor',
    description:
      'Only the email of a verified identity (widget identity token) is looked up; a typed email is shown with `email_source: "typed"`, nothing is looked up and `lookup_skipped` says why. A connected service that fails never fails the request: its block keeps `connected: true`, is empty and carries `error`.',
    responses: { 200: { description: 'Orders and billing, by service.', json: customerContext } },
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/revenue',
    summary: "Set the conversation's revenue (null clears it)",
    body: { schema: revenueBody, examples: [{ amount: 129.5, currency: 'eur' }, { amount: null }] },
    responses: { 200: { description: 'The revenue as stored.', json: revenue } },
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/lead',
    summary: 'Save the captured contact details as a lead (one per conversation)',
    responses: {
      200: { description: 'The existing lead, refreshed.', json: lead },
      201: { description: 'A new lead.', json: lead },
      422: 'No name, email or phone has been captured yet.',
    },
  },
  ...assistEndpoints(handles),
  {
    ...agent,
    method: 'get',
    path: '/api/agent/visitors',
    summary: 'Everyone browsing the workspace’s sites now (live visitors)',
    description: '`limit` is clamped to 1..200 (default 100; an unreadable value counts as the default).',
    query: { schema: listQuery, examples: [{ limit: '50' }] },
    responses: { 200: { description: 'The live list.', json: liveVisitors } },
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/visitors/{visitor}/invite',
    summary: 'Start a chat with a browsing visitor',
    description: 'The message goes into the visitor’s open conversation with the sending chatbot (200) or a new one held by an agent (201); the widget gets it on its next heartbeat.',
    limit: { points: 30, seconds: 60, by: 'user' },
    body: { schema: inviteBody, examples: [{ message: 'Hi! Can I help you find the right size?' }, { message: 'Hello from sales.', chatbot_id: 1 }] },
    responses: {
      200: { description: 'Sent into the open conversation.', json: invited },
      201: { description: 'Sent into a new conversation.', json: invited },
      409: 'The visitor has left the site (`visitor_left`).',
      422: '`chatbot_id` is not an active chatbot of the workspace, or the workspace has no active chatbot.',
      500: 'The chat could not be started; nothing was saved, a retry is safe.',
    },
  },
  ...pushEndpoints(agent),
];
