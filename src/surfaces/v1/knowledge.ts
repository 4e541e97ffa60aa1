import { z } from 'zod';
import { findChatbot } from '../../domain/chatbots/findChatbot';
import { trainDocument } from '../../domain/knowledge/trainDocument';
import { unprocessable } from '../../errors';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { errorBody } from '../../openapi/responses/common';
import { v1Knowledge } from '../../openapi/responses/knowledge';
import { presentV1Knowledge } from '../../presenters/knowledge';
import { endpoint } from '../endpoint';

const text = (max: number, blankMessage: string) => z.string().max(max).regex(NOT_BLANK, blankMessage);

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

export const knowledgeEndpoints = [
  endpoint({
    surface: 'v1',
    auth: 'api',
    method: 'post',
    path: '/api/v1/chatbots/{key}/knowledge',
    summary: 'Add a document and train it inside the request',
    description: 'A `qa` document is its title (the question) and content (the answer, up to 50,000 characters). NUL and other control characters are replaced by spaces.',
    ability: 'manage-content',
    body: {
      schema: createKnowledgeBody,
      large: true,
      examples: [
        { title: 'Returns', content: 'You can return any item within 30 days of delivery.' },
        { title: 'Do you ship abroad?', content: 'Yes, to every EU country.', type: 'qa' },
      ],
    },
    responses: {
      201: { description: 'Trained: status `ready`.', json: z.object({ data: v1Knowledge }) },
      422: {
        description: 'Validation failed (`errors`), or the document was saved but training failed: `data` carries its id and status (`failed`, or `pending` when training was queued again).',
        json: z.union([errorBody, z.looseObject({ message: z.string(), code: z.literal('unprocessable'), data: v1Knowledge })]),
      },
    },
    handler: async ({ ctx, body: parseBody }, req, res) => {
      const chatbot = await findChatbot(authOf(req).company.id, req.params.key);
      const body = parseBody();
      const document =
        body.type === 'qa'
          ? ({ type: 'qa', title: body.title, question: body.title, answer: body.content } as const)
          : ({ type: 'text', title: body.title, content: body.content } as const);
      const { source, failure } = await trainDocument(ctx, chatbot, document);
      if (failure) throw unprocessable(failure, { data: presentV1Knowledge(source) });
      res.status(201).json({ data: presentV1Knowledge(source) });
    },
  }),
];
