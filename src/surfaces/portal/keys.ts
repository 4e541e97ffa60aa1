import type { Request } from 'express';
import { z } from 'zod';
import { isProviderSlug, PROVIDERS, type ProviderSlug } from '../../../config/providers';
import { deleteProviderKey, providerKeyStatuses, saveProviderKey } from '../../domain/providerKeys/providerKeys';
import { validationFailed } from '../../errors';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { provider } from '../../openapi/responses/chatbots';
import { messageBody } from '../../openapi/responses/common';
import { presentProviderKeyStatus, presentSavedProviderKey } from '../../presenters/providerKey';
import { endpoint } from '../endpoint';

export const saveKeyBody = z.object({
  api_key: z.string().max(300).regex(NOT_BLANK, 'The api key field is required.'),
});

/** An unrecognised slug is a 422 (not a 404), named on `provider`. */
function providerOf(req: Request<{ provider: string }>): ProviderSlug {
  const { provider } = req.params;
  if (!isProviderSlug(provider)) throw validationFailed({ provider: ['The selected provider is invalid.'] });
  return provider;
}

const portal = { surface: 'portal', auth: 'portal' } as const;
const keyStatus = z.object({ provider, label: z.string(), last_four: z.string().nullable(), configured: z.boolean() });

export const keyEndpoints = [
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/keys',
    summary: 'Provider key status for every provider (a stored key is never returned)',
    responses: { 200: { description: 'The eight providers in a fixed order.', json: z.object({ data: z.array(keyStatus) }) } },
    handler: async (_input, req, res) => {
      res.json({ data: (await providerKeyStatuses(authOf(req).company.id)).map(presentProviderKeyStatus) });
    },
  }),
  endpoint({
    ...portal,
    method: 'put',
    path: '/api/portal/keys/{provider}',
    summary: "Store the workspace's key for a provider (encrypted, never returned)",
    ability: 'manage-workspace',
    body: { schema: saveKeyBody, examples: [{ api_key: 'sk-live-0123456789abcdef' }] },
    responses: {
      200: { description: 'Stored; only the last four characters come back.', json: z.object({ data: keyStatus.omit({ label: true }) }) },
      422: 'An unknown provider slug (`errors.provider`, checked before the body), or a blank or too long key.',
    },
    never: [404],
    handler: async ({ ctx, body }, req, res) => {
      const provider = providerOf(req);
      const { api_key: apiKey } = body();
      res.json({ data: presentSavedProviderKey(await saveProviderKey(authOf(req).company.id, provider, apiKey, ctx.secrets)) });
    },
  }),
  endpoint({
    ...portal,
    method: 'delete',
    path: '/api/portal/keys/{provider}',
    summary: "Remove the workspace's key for a provider (idempotent)",
    ability: 'manage-workspace',
    responses: { 200: { description: 'Says whether a key was removed.', json: messageBody }, 422: 'An unknown provider slug (`errors.provider`).' },
    never: [404],
    handler: async (_input, req, res) => {
      const provider = providerOf(req);
      const removed = await deleteProviderKey(authOf(req).company.id, provider);
      const label = PROVIDERS[provider].label;
      res.json({ message: removed ? `The ${label} key was removed.` : `No ${label} key was set; nothing was removed.` });
    },
  }),
];
