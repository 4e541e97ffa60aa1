import { PROVIDERS } from '../../config/providers';
import type { ProviderKeyStatus } from '../domain/providerKeys/providerKeys';

/** A provider key's status: the key itself is never part of any answer. */
export const presentProviderKeyStatus = ({ provider, lastFour }: ProviderKeyStatus) => ({
  provider,
  label: PROVIDERS[provider].label,
  last_four: lastFour,
  configured: lastFour !== null,
});

export const presentSavedProviderKey = ({ provider, lastFour }: ProviderKeyStatus) => ({
  provider,
  last_four: lastFour,
  configured: lastFour !== null,
});
