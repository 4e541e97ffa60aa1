import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { findSuggestion, SUGGESTION_OUTCOMES } from '../../domain/assist/aiSuggestions';
import { enhanceDraft } from '../../domain/assist/enhanceDraft';
import { ENHANCE_MODES } from '../../domain/assist/prompts';
import { suggestReply } from '../../domain/assist/suggestReply';
import { suggestTags } from '../../domain/assist/suggestTags';
import { summariseConversation } from '../../domain/assist/summarise';
import { findConversationWithChatbot as conversationOf, type ConversationWithChatbot } from '../../domain/conversations/findConversation';
import { authOf, requireAbility } from '../../http/authenticate';
import { rateLimit } from '../../http/rateLimit';
import { notBlank, parse } from '../../http/validate';
import { displayTime } from '../../presenters/displayTime';

export const suggestBody = z.object({
  draft: z.string().max(4000).nullish(),
});

export const enhanceBody = z.object({
  body: z.string().max(4000).refine(notBlank, 'The body field must not be empty or only whitespace.'),
  mode: z.enum(ENHANCE_MODES).nullish(),
});

export const outcomeBody = z.object({
  outcome: z.enum(SUGGESTION_OUTCOMES),
});

type ConversationRequest = Request<{ conversation: string }>;

/**
 * AI assist for agents: reply suggestions, draft enhancing, summaries, suggestion outcomes. The model
 * is asked here, outside the conversation's actor; what is kept is written by one of its turns.
 */
export function assistRoutes(ctx: AppContext, actors: Actors): Router {
  const router = Router();
  const handles = requireAbility('handle-conversations');
  // Route limits count every request that passes the role check, before the conversation is looked up.
  const perUser = (name: string, points: number) => rateLimit(ctx.limiters, { name, points, duration: 60, by: 'user' });

  router.post('/conversations/:conversation/suggest', handles, perUser('agent-suggest', 30), async (req: ConversationRequest, res) => {
    const { company, user } = authOf(req);
    const conversation = await conversationOf(company.id, req.params.conversation);
    const { draft } = parse(suggestBody, req.body);
    const suggestion = await suggestReply(ctx, { company, userId: user.id, conversation, draft });
    const { id } = await actors.ask('conversation', conversation.publicId, { type: 'keepSuggestion', userId: user.id, suggestion });
    res.json({ id, suggestion });
  });

  router.post('/conversations/:conversation/enhance', handles, perUser('agent-enhance', 30), async (req: ConversationRequest, res) => {
    const { company, user } = authOf(req);
    const conversation = await conversationOf(company.id, req.params.conversation);
    const { body, mode } = parse(enhanceBody, req.body);
    res.json(await enhanceDraft(ctx, { company, userId: user.id, conversation, body, mode: mode ?? 'fix' }));
  });

  // Summaries: 10 a minute per agent (docs/api.md "AI assist").
  router.post('/conversations/:conversation/summary', handles, perUser('agent-summary', 10), async (req: ConversationRequest, res) => {
    const { company, user } = authOf(req);
    const conversation = await conversationOf(company.id, req.params.conversation);
    const summary = await summariseConversation(ctx, { company, userId: user.id, conversation });
    const { summaryAt } = await actors.ask('conversation', conversation.publicId, { type: 'saveSummary', summary });
    await refreshTagSuggestions(conversation, user.id);
    res.json({ summary, summary_at: displayTime(new Date(summaryAt)) });
  });

  router.post('/suggestion/:suggestion/outcome', handles, perUser('agent-suggestion-outcome', 60), async (req: Request<{ suggestion: string }>, res) => {
    const suggestion = await findSuggestion(authOf(req).company.id, req.params.suggestion);
    const { outcome } = parse(outcomeBody, req.body);
    await actors.ask('conversation', suggestion.conversationId, { type: 'suggestionOutcome', suggestionId: suggestion.id, outcome });
    res.json({ id: suggestion.id, outcome });
  });

  /** Tag suggestions follow a new summary in the same request; their failures are logged, never the summary's. */
  async function refreshTagSuggestions(conversation: ConversationWithChatbot, userId: number): Promise<void> {
    try {
      const suggestions = await suggestTags(ctx, conversation.id, { userId });
      if (suggestions) await actors.ask('conversation', conversation.publicId, { type: 'replaceSuggestedTags', suggestions });
    } catch (error) {
      ctx.logger.warn({ err: error, conversationId: conversation.id }, 'tag suggestions failed');
    }
  }

  return router;
}
