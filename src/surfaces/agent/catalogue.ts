import { z } from 'zod';
import { listCannedReplies } from '../../domain/catalogue/listCannedReplies';
import { listTags } from '../../domain/catalogue/listTags';
import { recordCannedUse } from '../../domain/catalogue/recordCannedUse';
import { notFound } from '../../errors';
import { authOf } from '../../http/authenticate';
import { cannedReply } from '../../openapi/responses/agent';
import { tag } from '../../openapi/responses/inbox';
import { presentCannedReply, presentTag } from '../../presenters/agent';
import { endpoint } from '../endpoint';

// Path ids are digits only: "12abc" or "1e3" names no record, so it is a 404 like any unknown id.
const recordId = z.string().regex(/^\d{1,10}$/).transform(Number).pipe(z.number().int().positive().max(2 ** 31 - 1));

const agent = { surface: 'agent', auth: 'agent' } as const;

/** Tags and canned replies: what the composer offers. */
export const catalogueEndpoints = [
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/tags',
    summary: 'The workspace tag catalogue, by name',
    responses: { 200: { description: 'The tags.', json: z.object({ tags: z.array(tag) }) } },
    handler: async (_input, req, res) => {
      res.json({ tags: (await listTags(authOf(req).company.id)).map(presentTag) });
    },
  }),
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/canned',
    summary: "Shared canned replies plus the caller's own, most used first",
    responses: { 200: { description: 'The canned replies.', json: z.object({ canned: z.array(cannedReply) }) } },
    handler: async (_input, req, res) => {
      const { company, user } = authOf(req);
      res.json({ canned: (await listCannedReplies(company.id, user.id)).map(presentCannedReply) });
    },
  }),
  endpoint({
    ...agent,
    ability: 'handle-conversations',
    method: 'post',
    path: '/api/agent/canned/{canned}/used',
    summary: 'Count one use of a canned reply',
    params: { canned: recordId.describe('canned reply id') },
    responses: { 200: { description: 'Counted.', json: z.object({ ok: z.literal(true) }) }, 403: "Another agent's own reply." },
    handler: async (_input, req, res) => {
      const id = recordId.safeParse(req.params.canned);
      if (!id.success) throw notFound('Canned reply');
      const { company, user } = authOf(req);
      await recordCannedUse(company.id, user.id, id.data);
      res.json({ ok: true });
    },
  }),
];
