import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { trainDocument } from '../../domain/knowledge/trainDocument';
import { unprocessable } from '../../errors';
import { authOf, requireAbility } from '../../http/authenticate';
import { knowledgeJsonBody } from '../../http/jsonBody';
import { notBlank, parse } from '../../http/validate';
import { presentV1Knowledge } from '../../presenters/knowledge';

const text = (max: number, blankMessage: string) => z.string().max(max).refine(notBlank, blankMessage);

/** A `qa` document is its title (the question) and content (the answer, capped like the portal's answer). */
export const createKnowledgeBody = z
  .object({
    title: text(200, 'The title field is required.'),
    content: text(1_000_000, 'The content field is required.'),
    type: z.enum(['text', 'qa']).default('text'),
  })
  .superRefine((body, issues) => {
    if (body.type === 'qa' && body.content.length > 50_000) {
      issues.addIssue({ code: 'custom', path: ['content'], message: 'The content field must not be greater than 50000 characters for a qa document.' });
    }
  });

export function knowledgeRoutes(ctx: AppContext): Router {
  const router = Router();

  router.post('/chatbots/:key/knowledge', requireAbility('manage-content'), knowledgeJsonBody, async (req: Request<{ key: string }>, res) => {
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    const body = parse(createKnowledgeBody, req.body);
    const document =
      body.type === 'qa'
        ? ({ type: 'qa', title: body.title, question: body.title, answer: body.content } as const)
        : ({ type: 'text', title: body.title, content: body.content } as const);
    const { source, failure } = await trainDocument(ctx, chatbot, document);
    if (failure) throw unprocessable(failure, { data: presentV1Knowledge(source) });
    res.status(201).json({ data: presentV1Knowledge(source) });
  });

  return router;
}
