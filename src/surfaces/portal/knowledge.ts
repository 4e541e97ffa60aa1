import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { addSource, type NewSource } from '../../domain/knowledge/addSource';
import { deleteSource } from '../../domain/knowledge/deleteSource';
import { listSources } from '../../domain/knowledge/listSources';
import { authOf, requireAbility } from '../../http/authenticate';
import { knowledgeJsonBody } from '../../http/jsonBody';
import { notBlank, parse } from '../../http/validate';
import { presentPortalKnowledge } from '../../presenters/knowledge';

const text = (max: number, field: string) => z.string().max(max).refine(notBlank, `The ${field} field is required.`);
const title = z.string().max(255).optional();

/** One shape per type; `type` picks it, so a field another type needs is simply not asked for. */
export const createKnowledgeBody = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text'), title, content: text(1_000_000, 'content') }),
    z.object({ type: z.literal('qa'), title, question: text(2000, 'question'), answer: text(50_000, 'answer') }),
    z.object({ type: z.literal('url'), title, source_url: z.string().max(2048).pipe(z.url({ protocol: /^https?$/, error: 'The source url must be an http or https address.' })) }),
  ],
  { error: 'The type must be one of text, qa or url.' },
);

export const sourceId = z.coerce.number().int().positive().max(2 ** 31 - 1);

export function knowledgeRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/chatbots/:key/knowledge', async (req, res) => {
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    res.json({ data: (await listSources(chatbot)).map(presentPortalKnowledge) });
  });

  router.post('/chatbots/:key/knowledge', requireAbility('manage-content'), knowledgeJsonBody, async (req: Request<{ key: string }>, res) => {
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    const body = parse(createKnowledgeBody, req.body);
    const source: NewSource = body.type === 'url' ? { type: 'url', title: body.title, sourceUrl: body.source_url } : body;
    res.status(201).json({ data: presentPortalKnowledge(await addSource(ctx, chatbot, source)) });
  });

  router.delete('/chatbots/:key/knowledge/:source', requireAbility('manage-content'), async (req: Request<{ key: string; source: string }>, res) => {
    const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
    const id = sourceId.safeParse(req.params.source);
    await deleteSource(chatbot, id.success ? id.data : 0);
    res.json({ message: 'The knowledge source was deleted.' });
  });

  return router;
}
