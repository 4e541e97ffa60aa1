import { Router, type Request } from 'express';
import { z } from 'zod';
import { isProviderSlug, PROVIDERS, type ProviderSlug } from '../../../config/providers';
import type { AppContext } from '../../context';
import { deleteProviderKey, providerKeyStatuses, saveProviderKey } from '../../domain/providerKeys/providerKeys';
import { validationFailed } from '../../errors';
import { authOf, requireAbility } from '../../http/authenticate';
import { notBlank, parse } from '../../http/validate';
import { presentProviderKeyStatus, presentSavedProviderKey } from '../../presenters/providerKey';

export const saveKeyBody = z.object({
  api_key: z.string().max(300).refine(notBlank, 'The api key field is required.'),
});

/** An unrecognised slug is a 422 (not a 404), named on `provider`. */
function providerOf(req: Request<{ provider: string }>): ProviderSlug {
  const { provider } = req.params;
  if (!isProviderSlug(provider)) throw validationFailed({ provider: ['The selected provider is invalid.'] });
  return provider;
}

export function keyRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/keys', async (req, res) => {
    res.json({ data: (await providerKeyStatuses(authOf(req).company.id)).map(presentProviderKeyStatus) });
  });

  router.put('/keys/:provider', requireAbility('manage-workspace'), async (req: Request<{ provider: string }>, res) => {
    const provider = providerOf(req);
    const { api_key: apiKey } = parse(saveKeyBody, req.body);
    res.json({ data: presentSavedProviderKey(await saveProviderKey(authOf(req).company.id, provider, apiKey, ctx.secrets)) });
  });

  router.delete('/keys/:provider', requireAbility('manage-workspace'), async (req: Request<{ provider: string }>, res) => {
    const provider = providerOf(req);
    const removed = await deleteProviderKey(authOf(req).company.id, provider);
    const label = PROVIDERS[provider].label;
    res.json({ message: removed ? `The ${label} key was removed.` : `No ${label} key was set; nothing was removed.` });
  });

  return router;
}
