import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config/env';
import { PROVIDERS, type ProviderSlug } from '../../config/providers';
import { SettingsCache } from '../domain/chatbots/settingsCache';
import { ProviderKey } from '../models';
import type { SecretBox } from '../security/encryption';
import { ProviderError } from './providers/errors';
import type { ProviderCallObserver, ProviderEndpoint } from './providers/types';

export interface EndpointDeps {
  config: Pick<Config, 'providers' | 'providerTimeoutMs'> & Partial<Pick<Config, 'redisPrefix'>>;
  /** With it (and the config's redisPrefix), stored keys are remembered while the settings epoch stands (storedKeyOf). */
  redis?: Redis;
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
export async function resolveEndpoint(deps: EndpointDeps, companyId: number, slug: ProviderSlug, epochRead?: string): Promise<ProviderEndpoint | null> {
  const settings = deps.config.providers[slug];
  const stored = await storedKeyOf(deps, companyId, slug, epochRead);
  let apiKey = settings.apiKey;
  if (stored !== null) {
    try {
      apiKey = deps.secrets.open(stored);
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

const storedKeys = new SettingsCache((key: string) => {
  const [companyId, provider] = key.split(':') as [string, ProviderSlug];
  return ProviderKey.findOne({ where: { companyId: Number(companyId), provider }, attributes: ['keyEncrypted'] }).then((row) => row?.keyEncrypted ?? null);
});

/**
 * The workspace's stored key for a provider, still sealed (null when none), remembered per process
 * while the cluster's settings epoch stands (SettingsCache): storing or removing a key raises it
 * (src/domain/providerKeys/providerKeys.ts and the model's hooks), so every node reads the key again
 * on its next reply. Opened on each use, so a key sealed under another APP_KEY fails every time.
 * `epochRead`: the epoch the request already read (the stream route's), checked instead of reading it again.
 */
function storedKeyOf(deps: EndpointDeps, companyId: number, slug: ProviderSlug, epochRead?: string): Promise<string | null> {
  const { redisPrefix } = deps.config;
  const key = `${companyId}:${slug}`;
  return redisPrefix === undefined ? storedKeys.get({ config: { redisPrefix: '' } }, key) : storedKeys.get({ redis: deps.redis, config: { redisPrefix } }, key, epochRead);
}
