import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import { findConversation } from '../../domain/conversations/findConversation';
import { notFound, validationFailed } from '../../errors';
import { authOf, requireAbility } from '../../http/authenticate';
import { notBlank, parse } from '../../http/validate';
import { Tag } from '../../models';
import { presentSentMessage } from '../../presenters/message';
import { displayTime } from '../../presenters/displayTime';

const agentText = (field: string) =>
  z.string().max(4000).refine(notBlank, `The ${field} field must not be empty or only whitespace.`);

export const replyBody = z.object({ body: agentText('body'), client_id: z.string().min(1).max(64).optional() });
export const noteBody = z.object({ body: agentText('body') });
export const tagBody = z.object({ tag_id: z.number().int().positive() });

type ConversationRequest = Request<{ conversation: string }>;

/**
 * What agents do to a conversation. Each action is a message to the conversation's actor, wherever it
 * lives, so it is ordered with the visitor's messages and the AI's replies and emits its events once.
 */
export function conversationRoutes(actors: Actors): Router {
  const router = Router();
  const handles = requireAbility('handle-conversations');

  /** The workspace's conversation named in the path (404 otherwise), before the body is read. */
  const target = async (req: ConversationRequest) => {
    const { user, company } = authOf(req);
    const conversation = await findConversation(company.id, req.params.conversation, { attributes: ['id', 'publicId'] });
    return { user, id: conversation.publicId };
  };

  router.post('/conversations/:conversation/reply', handles, async (req: ConversationRequest, res) => {
    const { user, id } = await target(req);
    const body = parse(replyBody, req.body);
    const reply = await actors.ask('conversation', id, { type: 'agentReply', userId: user.id, text: body.body, clientId: body.client_id });
    const message = presentSentMessage(reply.message);
    res.json({ message, ...(reply.duplicate && { duplicate: true }) });
  });

  for (const type of ['takeover', 'release', 'reopen'] as const) {
    router.post(`/conversations/:conversation/${type}`, handles, async (req: ConversationRequest, res) => {
      const { user, id } = await target(req);
      const view = await actors.ask('conversation', id, { type, userId: user.id });
      res.json({ status: view.status });
    });
  }

  router.post('/conversations/:conversation/resolve', handles, async (req: ConversationRequest, res) => {
    const { user, id } = await target(req);
    const view = await actors.ask('conversation', id, { type: 'resolve', userId: user.id });
    res.json({ status: view.status, resolution: view.resolution });
  });

  router.post('/conversations/:conversation/notes', handles, async (req: ConversationRequest, res) => {
    const { user, id } = await target(req);
    const { body } = parse(noteBody, req.body);
    const note = await actors.ask('conversation', id, { type: 'note', userId: user.id, body });
    res.status(201).json({ note: { id: note.id, body: note.body, author: user.name, at: displayTime(new Date(note.at)) } });
  });

  router.post('/conversations/:conversation/tags', handles, async (req: ConversationRequest, res) => {
    const { user, id } = await target(req);
    const { tag_id: tagId } = parse(tagBody, req.body);
    if (!(await Tag.count({ where: { id: tagId, companyId: user.companyId } }))) throw validationFailed({ tag_id: ['The selected tag id is invalid.'] });
    await actors.ask('conversation', id, { type: 'tag', userId: user.id, tagId, attach: true });
    res.json({ attached: tagId });
  });

  router.delete('/conversations/:conversation/tags/:tag', handles, async (req: Request<{ conversation: string; tag: string }>, res) => {
    const { user, id } = await target(req);
    const tagId = /^\d{1,9}$/.test(req.params.tag) ? Number(req.params.tag) : 0;
    if (!tagId || !(await Tag.count({ where: { id: tagId, companyId: user.companyId } }))) throw notFound('Tag');
    await actors.ask('conversation', id, { type: 'tag', userId: user.id, tagId, attach: false });
    res.json({ detached: tagId });
  });

  return router;
}
