import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { findSuggestion, SUGGESTION_OUTCOMES } from '../../domain/assist/aiSuggestions';
import { enhanceDraft } from '../../domain/assist/enhanceDraft';
import { ENHANCE_MODES } from '../../domain/assist/prompts';
import { suggestReply, type AssistReason } from '../../domain/assist/suggestReply';
import { suggestTags } from '../../domain/assist/suggestTags';
import { summariseConversation } from '../../domain/assist/summarise';
import { findConversationWithChatbot as conversationOf, type ConversationWithChatbot } from '../../domain/conversations/findConversation';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { displayTime as displayTimeShape, id } from '../../openapi/responses/formats';
import type { RouteLimit } from '../../openapi/registry';
import { displayTime } from '../../presenters/displayTime';
import { endpoint } from '../endpoint';

export const suggestBody = z.object({
  draft: z.string().max(4000).nullish(),
});

export const enhanceBody = z.object({
  body: z.string().max(4000).regex(NOT_BLANK, 'The body field must not be empty or only whitespace.'),
  mode: z.enum(ENHANCE_MODES).nullish(),
});

export const outcomeBody = z.object({
  outcome: z.enum(SUGGESTION_OUTCOMES),
});


/** Why an assist call did nothing (null: it did its work); a spent allowance stays a 429. */
const assistReason = (reasons: [AssistReason, ...AssistReason[]]) => z.enum(reasons).nullable().describe('Why the AI did nothing; null when it did its work (extension).');

const handles = { surface: 'agent', auth: 'agent', ability: 'handle-conversations' } as const;
// Route limits count every request that passes the role check, before the conversation is looked up.
const perUser = (name: string, points: number): RouteLimit => ({ name, points, seconds: 60, by: 'user' });
const allowance = "The route limit, or the workspace's monthly AI allowance is spent (`limit_reached`).";
const provider = { 502: 'The AI provider could not be reached (`provider_unreachable`).' };

/** AI assist for agents: reply suggestions, draft enhancing, summaries, suggestion outcomes. Each AI call counts against the monthly allowance once it succeeds. */
export const assistEndpoints = [
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/suggest',
    summary: 'Suggest a reply (one AI call)',
    description:
      '`suggestion` is null when the AI had nothing to give, and `reason` says why (null when it did): `copilot_off` (the chatbot\'s AI assist is off), `no_provider_key` (no key for the chatbot\'s provider, in the workspace or the platform), `nothing_to_answer` (no visitor line waits for an answer, or the model answered nothing). No call is made for the first two, nor when nothing waits. Every request stores a suggestion row, so `id` is always set.',
    limit: perUser('agent-suggest', 30),
    body: { schema: suggestBody, examples: [{ draft: 'Sure, I can' }, {}] },
    responses: { 200: { description: 'The suggestion.', json: z.object({ id, suggestion: z.string().nullable(), reason: assistReason(['copilot_off', 'no_provider_key', 'nothing_to_answer']) }) }, 429: allowance, ...provider },
    handler: async ({ ctx, actors, body }, req, res) => {
      const { company, user } = authOf(req);
      const conversation = await conversationOf(company.id, req.params.conversation);
      const { draft } = body();
      const { suggestion, reason } = await suggestReply(ctx, { company, userId: user.id, conversation, draft });
      const { id } = await actors.ask('conversation', conversation.publicId, { type: 'keepSuggestion', userId: user.id, suggestion });
      res.json({ id, suggestion, reason });
    },
  }),
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/enhance',
    summary: 'Improve a draft (one AI call)',
    description:
      'The original comes back with `enhanced: false` and a `reason` (null when enhanced): `copilot_off`, `no_provider_key` (no call is made for these two) or `no_change` (the model found nothing to improve).',
    limit: perUser('agent-enhance', 30),
    body: { schema: enhanceBody, examples: [{ body: 'thx, wil send it tmrw', mode: 'professional' }] },
    responses: { 200: { description: 'The text.', json: z.object({ text: z.string(), enhanced: z.boolean(), reason: assistReason(['copilot_off', 'no_provider_key', 'no_change']) }) }, 429: allowance, ...provider },
    handler: async ({ ctx, body: parseBody }, req, res) => {
      const { company, user } = authOf(req);
      const conversation = await conversationOf(company.id, req.params.conversation);
      const { body, mode } = parseBody();
      res.json(await enhanceDraft(ctx, { company, userId: user.id, conversation, body, mode: mode ?? 'fix' }));
    },
  }),
  // Summaries: 10 a minute per agent (docs/api.md "AI assist").
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/summary',
    summary: 'Summarise the conversation and name its intent (one AI call), and refresh AI tag suggestions',
    limit: perUser('agent-summary', 10),
    responses: {
      200: { description: 'The stored summary; the intent the same answer named is stored as the conversation\'s `intent`.', json: z.object({ summary: z.string(), summary_at: displayTimeShape }) },
      422: 'There is nothing to summarise yet, no provider key is configured, or the model answered nothing.',
      429: allowance,
      ...provider,
    },
    handler: async ({ ctx, actors }, req, res) => {
      const { company, user } = authOf(req);
      const conversation = await conversationOf(company.id, req.params.conversation);
      const { summary, intent } = await summariseConversation(ctx, { company, userId: user.id, conversation });
      const { summaryAt } = await actors.ask('conversation', conversation.publicId, { type: 'saveSummary', summary, intent });
      await refreshTagSuggestions(ctx, actors, conversation, user.id);
      res.json({ summary, summary_at: displayTime(new Date(summaryAt)) });
    },
  }),
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/suggestion/{suggestion}/outcome',
    summary: 'Report what became of a suggestion (the latest report wins)',
    limit: perUser('agent-suggestion-outcome', 60),
    body: { schema: outcomeBody, examples: [{ outcome: 'inserted' }] },
    responses: { 200: { description: 'Recorded.', json: z.object({ id, outcome: outcomeBody.shape.outcome }) } },
    handler: async ({ actors, body }, req, res) => {
      const suggestion = await findSuggestion(authOf(req).company.id, req.params.suggestion);
      const { outcome } = body();
      await actors.ask('conversation', suggestion.conversationId, { type: 'suggestionOutcome', suggestionId: suggestion.id, outcome });
      res.json({ id: suggestion.id, outcome });
    },
  }),
];

/** Tag suggestions follow a new summary in the same request; their failures are logged, never the summary's. */
async function refreshTagSuggestions(ctx: AppContext, actors: Actors, conversation: ConversationWithChatbot, userId: number): Promise<void> {
  try {
    const suggestions = await suggestTags(ctx, conversation.id, { userId });
    if (suggestions) await actors.ask('conversation', conversation.publicId, { type: 'replaceSuggestedTags', suggestions });
  } catch (error) {
    ctx.logger.warn({ err: error, conversationId: conversation.id }, 'tag suggestions failed');
  }
}
