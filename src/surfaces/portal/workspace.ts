import { z } from 'zod';
import { snippetChatbot, widgetSnippet } from '../../domain/chatbots/widgetSnippet';
import { monthlyAnalytics } from '../../domain/usage/analytics';
import { authOf } from '../../http/authenticate';
import { publicKey } from '../../openapi/responses/chatbots';
import { count, isoOffset } from '../../openapi/responses/formats';
import { presentPortalAnalytics } from '../../presenters/analytics';
import { endpoint } from '../endpoint';

const portal = { surface: 'portal', auth: 'portal' } as const;

/** Workspace-wide reads: this month's analytics and the embed snippet. */
export const workspaceEndpoints = [
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/analytics',
    summary: "This calendar month's analytics (UTC)",
    responses: {
      200: {
        description: 'Conversations, those the AI resolved alone, messages by author, tokens, cost (USD) and AI calls this month.',
        json: z.object({
          data: z.object({
            period: z.string().regex(/^\d{4}-\d{2}$/),
            since: isoOffset,
            conversations: count,
            resolved_by_ai: count.describe('Extension: conversations closed this month that the AI resolved alone (the idle close, or a reset after its answer).'),
            ratings_up: count.describe("Extension: visitors' thumbs up on this month's AI answers (the widget's answer feedback)."),
            ratings_down: count.describe("Extension: visitors' thumbs down on this month's AI answers."),
            messages: z.object({ ai_replies: count, human_replies: count, visitor_messages: count, total: count }),
            tokens: count,
            cost: z.number().min(0),
            messages_used: count,
          }),
        }),
      },
    },
    handler: async (_input, req, res) => {
      res.json({ data: presentPortalAnalytics(await monthlyAnalytics(authOf(req).company.id)) });
    },
  }),
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/widget-snippet',
    summary: 'The embed script tag for the first active chatbot (else the newest)',
    responses: {
      200: { description: 'The snippet.', json: z.object({ data: z.object({ public_key: publicKey, snippet: z.string() }) }) },
      404: 'The workspace has no chatbot.',
    },
    handler: async ({ ctx }, req, res) => {
      const chatbot = await snippetChatbot(authOf(req).company.id);
      res.json({ data: { public_key: chatbot.publicKey, snippet: widgetSnippet(ctx.config.appUrl, chatbot.publicKey) } });
    },
  }),
];
