import type { Request } from 'express';
import { z } from 'zod';
import { findConversation } from '../../domain/conversations/findConversation';
import { notFound, validationFailed } from '../../errors';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { Tag } from '../../models';
import { blockedOnly, note, replied, statusOnly } from '../../openapi/responses/agent';
import { openElsewhere } from '../../openapi/responses/conversations';
import { id as recordIdShape } from '../../openapi/responses/formats';
import { presentSentMessage } from '../../presenters/message';
import { presentNote } from '../../presenters/agent';
import { endpoint } from '../endpoint';

const agentText = (field: string) => z.string().max(4000).regex(NOT_BLANK, `The ${field} field must not be empty or only whitespace.`);

export const replyBody = z.object({ body: agentText('body'), client_id: z.string().min(1).max(64).optional() });
export const noteBody = z.object({ body: agentText('body') });
export const tagBody = z.object({ tag_id: z.number().int().positive() });

/** The workspace's conversation named in the path (404 otherwise), before the body is read. */
const target = async (req: Request<{ conversation: string }>) => {
  const { user, company } = authOf(req);
  const conversation = await findConversation(company.id, req.params.conversation, { attributes: ['id', 'publicId'] });
  return { user, id: conversation.publicId };
};

const handles = { surface: 'agent', auth: 'agent', ability: 'handle-conversations' } as const;

const moved = { description: 'The status after the move.', json: statusOnly };

/** takeover, release, reopen: one shape, one sentence each. */
const move = (type: 'takeover' | 'release' | 'reopen', summary: string) =>
  endpoint({
    ...handles,
    method: 'post',
    path: `/api/agent/conversations/{conversation}/${type}`,
    summary,
    description: 'A move that does not apply answers the current status and writes nothing.',
    // Release never opens a conversation; takeover and reopen of a closed one do.
    responses: type === 'release' ? { 200: moved } : { 200: moved, 409: openElsewhere },
    handler: async ({ actors }, req, res) => {
      const { user, id } = await target(req);
      const view = await actors.ask('conversation', id, { type, userId: user.id });
      res.json({ status: view.status });
    },
  });

/** block, unblock: the visitor's messages are refused while the conversation is blocked. */
const blocking = (type: 'block' | 'unblock', summary: string, description: string) =>
  endpoint({
    ...handles,
    method: 'post',
    path: `/api/agent/conversations/{conversation}/${type}`,
    summary,
    description,
    responses: { 200: { description: 'Whether the conversation is blocked now.', json: blockedOnly } },
    handler: async ({ actors }, req, res) => {
      const { user, id } = await target(req);
      res.json(await actors.ask('conversation', id, { type: 'block', userId: user.id, blocked: type === 'block' }));
    },
  });

/**
 * What agents do to a conversation. Each action is a message to the conversation's actor, wherever it
 * lives, so it is ordered with the visitor's messages and the AI's replies and emits its events once.
 */
export const conversationEndpoints = [
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/reply',
    summary: 'Reply as an agent (takes the conversation over)',
    description: 'A repeat of a `client_id` in this conversation returns the first message with `duplicate: true` and sends nothing.',
    body: { schema: replyBody, examples: [{ body: 'Happy to help! Your parcel left today.', client_id: 'b7d1c0e2' }] },
    responses: { 200: { description: 'The stored message.', json: replied }, 409: openElsewhere },
    handler: async ({ actors, body: parseBody }, req, res) => {
      const { user, id } = await target(req);
      const body = parseBody();
      const reply = await actors.ask('conversation', id, { type: 'agentReply', userId: user.id, text: body.body, clientId: body.client_id });
      const message = presentSentMessage(reply.message);
      res.json({ message, ...(reply.duplicate && { duplicate: true }) });
    },
  }),
  move('takeover', 'Take the conversation over (assigned to the caller)'),
  move('release', 'Hand the conversation back to the AI'),
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/resolve',
    summary: 'Resolve (close) the conversation',
    responses: { 200: { description: 'Closed, resolution `resolved`.', json: z.object({ status: statusOnly.shape.status, resolution: z.string().nullable() }) } },
    handler: async ({ actors }, req, res) => {
      const { user, id } = await target(req);
      const view = await actors.ask('conversation', id, { type: 'resolve', userId: user.id });
      res.json({ status: view.status, resolution: view.resolution });
    },
  }),
  move('reopen', 'Reopen a closed conversation (back to the AI)'),
  blocking(
    'block',
    'Block the visitor (extension)',
    'From now on the visitor\'s widget stream, heartbeat, handoff, reset and v1 send answer 403 `blocked` and store nothing, on this chatbot, until an agent unblocks: also for a new conversation while this one is their latest. Event `blocked` (source agent) and `conversation.updated`; a repeat writes nothing.',
  ),
  blocking(
    'unblock',
    'Unblock the visitor (extension)',
    'The visitor may write again; `abuse_strikes` goes back to 0. Event `unblocked` (source agent) and `conversation.updated`; a repeat writes nothing.',
  ),
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/notes',
    summary: 'Add an internal note (never shown to the visitor)',
    body: { schema: noteBody, examples: [{ body: 'Customer prefers email.' }] },
    responses: { 201: { description: 'The note.', json: note } },
    handler: async ({ actors, body: parseBody }, req, res) => {
      const { user, id } = await target(req);
      const { body } = parseBody();
      const note = await actors.ask('conversation', id, { type: 'note', userId: user.id, body });
      res.status(201).json({ note: presentNote({ ...note, at: new Date(note.at) }, user.name) });
    },
  }),
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/tags',
    summary: 'Attach a catalogue tag (idempotent)',
    body: { schema: tagBody, examples: [{ tag_id: 1 }] },
    responses: { 200: { description: 'The attached tag id.', json: z.object({ attached: recordIdShape }) }, 422: '`tag_id` is not an integer id of the catalogue.' },
    handler: async ({ actors, body }, req, res) => {
      const { user, id } = await target(req);
      const { tag_id: tagId } = body();
      if (!(await Tag.count({ where: { id: tagId, companyId: user.companyId } }))) throw validationFailed({ tag_id: ['The selected tag id is invalid.'] });
      await actors.ask('conversation', id, { type: 'tag', userId: user.id, tagId, attach: true });
      res.json({ attached: tagId });
    },
  }),
  endpoint({
    ...handles,
    method: 'delete',
    path: '/api/agent/conversations/{conversation}/tags/{tag}',
    summary: 'Detach a tag (idempotent)',
    responses: { 200: { description: 'The detached tag id.', json: z.object({ detached: recordIdShape }) } },
    handler: async ({ actors }, req, res) => {
      const { user, id } = await target(req);
      const tagId = /^\d{1,9}$/.test(req.params.tag) ? Number(req.params.tag) : 0;
      if (!tagId || !(await Tag.count({ where: { id: tagId, companyId: user.companyId } }))) throw notFound('Tag');
      await actors.ask('conversation', id, { type: 'tag', userId: user.id, tagId, attach: false });
      res.json({ detached: tagId });
    },
  }),
];
