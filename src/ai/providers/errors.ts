import type { ProviderSlug } from '../../../config/providers';
import { AppError } from '../../errors';

/** Why a provider call failed; logged, never shown to visitors beyond the generic message. */
export type ProviderFailure = 'unreachable' | 'timeout' | 'auth' | 'rate_limited' | 'server' | 'rejected' | 'bad_response';

/**
 * A provider could not give an answer. Surfaces answer 502 (v1, agent AI assist) or an SSE `error`
 * with code `provider_unreachable` (widget), in the words docs/api.md "AI replies" gives.
 */
export class ProviderError extends AppError {
  override name = 'ProviderError';
  constructor(
    readonly provider: ProviderSlug,
    readonly failure: ProviderFailure,
    /** Upstream detail for the log (status, provider's error text); never sent to clients. */
    readonly detail: string,
  ) {
    super(502, 'provider_unreachable', 'The AI provider could not be reached; check the provider key configured for the workspace.');
  }
}
