// Why AI assist did nothing, in words an agent can act on (docs/api.md "AI assist": `reason`).

export type AssistReason = 'no_provider_key' | 'copilot_off' | 'nothing_to_answer' | 'no_change';

const KEY_HELP = 'An admin adds a provider key in the portal (Provider keys), or the operator sets PROVIDER_<NAME>_API_KEY on the server.';

const SUGGEST: Record<AssistReason, string> = {
  no_provider_key: `No suggestion: no AI provider key is set up. ${KEY_HELP}`,
  copilot_off: 'No suggestion: AI assist (copilot) is switched off for this chatbot. An admin can switch it on in the chatbot settings.',
  nothing_to_answer: 'Nothing to suggest yet: no visitor message is waiting for an answer.',
  no_change: 'Nothing to suggest yet.',
};

const ENHANCE: Record<AssistReason, string> = {
  no_provider_key: `The draft was not enhanced: no AI provider key is set up. ${KEY_HELP}`,
  copilot_off: 'The draft was not enhanced: AI assist (copilot) is switched off for this chatbot. An admin can switch it on in the chatbot settings.',
  nothing_to_answer: 'The draft is fine as it is.',
  no_change: 'The draft is fine as it is: the AI found nothing to improve.',
};

/** The sentence for a suggestion that did not come; an unknown or missing reason gets the plain one. */
export const whyNoSuggestion = (reason: string | null | undefined): string => SUGGEST[reason as AssistReason] ?? 'Nothing to suggest yet.';

export const whyNotEnhanced = (reason: string | null | undefined): string => ENHANCE[reason as AssistReason] ?? 'The draft is fine as it is.';
