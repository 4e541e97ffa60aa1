import { PROVIDER_SLUGS, type ProviderSlug } from '../../../config/providers';
import { settingsWritten } from '../../db/settingsEpoch';
import { ProviderKey } from '../../models';
import type { SecretBox } from '../../security/encryption';

export interface ProviderKeyStatus {
  provider: ProviderSlug;
  lastFour: string | null;
}

/** Every provider slug with the last four characters of the workspace's key, or null when none is stored. */
export async function providerKeyStatuses(companyId: number): Promise<ProviderKeyStatus[]> {
  const stored = await ProviderKey.findAll({ where: { companyId }, attributes: ['provider', 'lastFour'] });
  const lastFour = new Map(stored.map((key) => [key.provider, key.lastFour]));
  return PROVIDER_SLUGS.map((provider) => ({ provider, lastFour: lastFour.get(provider) ?? null }));
}

/** Stores (or replaces) a workspace's key, sealed with AES-256-GCM under APP_KEY; only its last four characters stay readable. */
export async function saveProviderKey(companyId: number, provider: ProviderSlug, apiKey: string, secrets: SecretBox): Promise<ProviderKeyStatus> {
  const key = apiKey.trim();
  const lastFour = key.slice(-4);
  await ProviderKey.sequelize!.query(
    `INSERT INTO provider_keys (company_id, provider, key_encrypted, last_four) VALUES (:companyId, :provider, :sealed, :lastFour)
     ON CONFLICT (company_id, provider) DO UPDATE SET key_encrypted = EXCLUDED.key_encrypted, last_four = EXCLUDED.last_four, updated_at = now()`,
    { replacements: { companyId, provider, sealed: secrets.seal(key), lastFour } },
  );
  // Every node remembers keys while the settings epoch stands (src/ai/endpoint.ts): this write moves it.
  await settingsWritten();
  return { provider, lastFour };
}

/** Removes a workspace's key; false when there was none (the delete is idempotent). */
export async function deleteProviderKey(companyId: number, provider: ProviderSlug): Promise<boolean> {
  return (await ProviderKey.destroy({ where: { companyId, provider } })) > 0;
}
