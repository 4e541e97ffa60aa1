import type { Logger } from 'pino';
import type { Config } from '../../config/env';
import { PROVIDERS, type ProviderSlug } from '../../config/providers';
import { ProviderKey } from '../models';
import type { SecretBox } from '../security/encryption';
import { ProviderError } from './providers/errors';
import type { ProviderCallObserver, ProviderEndpoint } from './providers/types';

export interface EndpointDeps {
  config: Pick<Config, 'providers' | 'providerTimeoutMs'>;
  secrets: SecretBox;
  logger: Logger;
  /** The process's metrics (AppContext's); tests that build deps by hand may leave calls unmeasured. */
  metrics?: { providerCall: ProviderCallObserver };
}

/**
 * Where a workspace's calls to one provider go, and with which key: the workspace's own stored key
 * (decrypted here, never logged), else the platform key from the environment, else none (null), in
 * which case callers fall back to the extractive responder or answer that AI is not configured.
 */
export async function resolveEndpoint(deps: EndpointDeps, companyId: number, slug: ProviderSlug): Promise<ProviderEndpoint | null> {
  const settings = deps.config.providers[slug];
  const stored = await ProviderKey.findOne({ where: { companyId, provider: slug }, attributes: ['keyEncrypted'] });
  let apiKey = settings.apiKey;
  if (stored) {
    try {
      apiKey = deps.secrets.open(stored.keyEncrypted);
    } catch {
      // Sealed under another APP_KEY: the workspace must enter its key again; a platform key is not silently used instead.
      deps.logger.error({ companyId, provider: slug }, 'stored provider key cannot be decrypted with the current APP_KEY');
      throw new ProviderError(slug, 'auth', 'stored key cannot be decrypted');
    }
  }
  if (!apiKey) return null;
  return {
    slug,
    baseUrl: settings.baseUrl ?? PROVIDERS[slug].defaultBaseUrl,
    apiKey,
    timeoutMs: deps.config.providerTimeoutMs,
    observe: deps.metrics?.providerCall,
  };
}
