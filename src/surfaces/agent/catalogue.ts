import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { listCannedReplies } from '../../domain/catalogue/listCannedReplies';
import { listTags } from '../../domain/catalogue/listTags';
import { recordCannedUse } from '../../domain/catalogue/recordCannedUse';
import { notFound } from '../../errors';
import { authOf, requireAbility } from '../../http/authenticate';
import { presentCannedReply, presentTag } from '../../presenters/agent';

// Path ids are digits only: "12abc" or "1e3" names no record, so it is a 404 like any unknown id.
export const recordId = z.string().regex(/^\d{1,10}$/).transform(Number).pipe(z.number().int().positive().max(2 ** 31 - 1));

/** Tags and canned replies: what the composer offers. */
export function catalogueRoutes(_ctx: AppContext): Router {
  const router = Router();

  router.get('/tags', async (req, res) => {
    res.json({ tags: (await listTags(authOf(req).company.id)).map(presentTag) });
  });

  router.get('/canned', async (req, res) => {
    const { company, user } = authOf(req);
    res.json({ canned: (await listCannedReplies(company.id, user.id)).map(presentCannedReply) });
  });

  router.post('/canned/:canned/used', requireAbility('handle-conversations'), async (req: Request<{ canned: string }>, res) => {
    const id = recordId.safeParse(req.params.canned);
    if (!id.success) throw notFound('Canned reply');
    const { company, user } = authOf(req);
    await recordCannedUse(company.id, user.id, id.data);
    res.json({ ok: true });
  });

  return router;
}
