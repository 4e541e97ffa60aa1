import { resolveEndpoint, type EndpointDeps } from '../../ai/endpoint';
import { chat, ProviderError, type ChatRequest, type Completion, type ProviderEndpoint } from '../../ai/providers';
import type { Chatbot, Company, UsageKind } from '../../models';
import { assertAllowance } from '../usage/allowance';
import { recordUsage } from '../usage/recordUsage';

export interface AssistCall {
  company: Pick<Company, 'id' | 'plan'>;
  chatbot: Pick<Chatbot, 'id' | 'provider' | 'model'>;
  conversationId: number;
  userId: number | null;
  kind: UsageKind;
  request: Omit<ChatRequest, 'model'>;
}

/**
 * Where the chatbot's provider is reached, with the workspace's key or the platform's; null when
 * neither exists. Assist features make no call (and spend nothing) then.
 */
export const endpointFor = (deps: EndpointDeps, chatbot: Pick<Chatbot, 'companyId' | 'provider'>): Promise<ProviderEndpoint | null> =>
  resolveEndpoint(deps, chatbot.companyId, chatbot.provider);

/**
 * One AI assist call with the chatbot's provider and model: refused with 429 once the monthly
 * allowance is spent, then written to the usage ledger as soon as it succeeds (the call is paid for
 * whether or not its result is kept). A provider failure is logged with its upstream detail and
 * rethrown as the 502 every surface answers.
 */
export async function callModel(deps: EndpointDeps, endpoint: ProviderEndpoint, call: AssistCall): Promise<Completion> {
  const { company, chatbot, kind } = call;
  await assertAllowance(company);
  let completion: Completion;
  try {
    completion = await chat(endpoint, { ...call.request, model: chatbot.model });
  } catch (error) {
    if (error instanceof ProviderError) {
      deps.logger.warn({ companyId: company.id, provider: error.provider, failure: error.failure, detail: error.detail, kind }, 'AI assist call failed');
    }
    throw error;
  }
  await recordUsage({
    companyId: company.id,
    kind,
    provider: chatbot.provider,
    model: completion.model,
    tokensIn: completion.tokensIn,
    tokensOut: completion.tokensOut,
    chatbotId: chatbot.id,
    conversationId: call.conversationId,
    userId: call.userId,
  });
  return completion;
}
