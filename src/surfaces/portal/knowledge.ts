import { z } from 'zod';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { addSource, type NewSource } from '../../domain/knowledge/addSource';
import { deleteSource } from '../../domain/knowledge/deleteSource';
import { listSources } from '../../domain/knowledge/listSources';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { messageBody } from '../../openapi/responses/common';
import { portalKnowledge } from '../../openapi/responses/knowledge';
import { presentPortalKnowledge } from '../../presenters/knowledge';
import { endpoint } from '../endpoint';

const text = (max: number, field: string) => z.string().max(max).regex(NOT_BLANK, `The ${field} field is required.`);
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

const sourceId = z.coerce.number().int().positive().max(2 ** 31 - 1);

const portal = { surface: 'portal', auth: 'portal' } as const;

export const knowledgeEndpoints = [
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/chatbots/{key}/knowledge',
    summary: "The chatbot's top-level knowledge sources, newest first",
    responses: { 200: { description: 'The sources (crawled pages are not listed).', json: z.object({ data: z.array(portalKnowledge) }) } },
    handler: async (_input, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      res.json({ data: (await listSources(chatbot)).map(presentPortalKnowledge) });
    },
  }),
  endpoint({
    ...portal,
    method: 'post',
    path: '/api/portal/chatbots/{key}/knowledge',
    summary: 'Add a knowledge source; it is indexed in the background',
    description: '`type` picks the fields: `text` (content), `qa` (question, answer) or `url` (source_url, crawled: same origin, robots.txt obeyed). `title` defaults by type.',
    ability: 'manage-content',
    body: {
      schema: createKnowledgeBody,
      large: true,
      examples: [
        { type: 'text', title: 'Shipping', content: 'We ship within two working days.' },
        { type: 'qa', question: 'Can I pay by invoice?', answer: 'Yes, on the Pro plan.' },
        { type: 'url', source_url: 'https://example.com/help' },
      ],
    },
    responses: { 201: { description: 'The source, status `pending`.', json: z.object({ data: portalKnowledge }) } },
    handler: async ({ ctx, body: parseBody }, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      const body = parseBody();
      const source: NewSource = body.type === 'url' ? { type: 'url', title: body.title, sourceUrl: body.source_url } : body;
      res.status(201).json({ data: presentPortalKnowledge(await addSource(ctx, chatbot, source)) });
    },
  }),
  endpoint({
    ...portal,
    method: 'delete',
    path: '/api/portal/chatbots/{key}/knowledge/{source}',
    summary: 'Delete a source, its crawled pages and everything indexed from it',
    description: "A crawled page's id, a non-numeric id, a repeat or another chatbot's source is a 404.",
    ability: 'manage-content',
    params: { source: sourceId.describe('knowledge source id') },
    responses: { 200: { description: 'Deleted.', json: messageBody } },
    handler: async (_input, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      const id = sourceId.safeParse(req.params.source);
      await deleteSource(chatbot, id.success ? id.data : 0);
      res.json({ message: 'The knowledge source was deleted.' });
    },
  }),
];
