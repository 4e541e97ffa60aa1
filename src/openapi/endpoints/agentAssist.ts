import { z } from 'zod';
import { enhanceBody, outcomeBody, suggestBody } from '../../surfaces/agent/assist';
import { displayTime, id } from '../responses/formats';
import type { Endpoint } from '../registry';

type Handles = Pick<Endpoint, 'surface' | 'auth' | 'ability'>;

const allowance = "The route limit, or the workspace's monthly AI allowance is spent (`limit_reached`).";
const provider = { 502: 'The AI provider could not be reached (`provider_unreachable`).' };

/** AI assist: each call counts against the monthly allowance once it succeeds. */
export const assistEndpoints = (handles: Handles): Endpoint[] => [
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/suggest',
    summary: 'Suggest a reply (one AI call)',
    description: '`suggestion` is null (no call) when there is nothing to answer yet or no provider key is configured. Every request stores a suggestion row, so `id` is always set.',
    limit: { points: 30, seconds: 60, by: 'user' },
    body: { schema: suggestBody, examples: [{ draft: 'Sure, I can' }, {}] },
    responses: { 200: { description: 'The suggestion.', json: z.object({ id, suggestion: z.string().nullable() }) }, 429: allowance, ...provider },
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/enhance',
    summary: 'Improve a draft (one AI call)',
    description: 'The original comes back with `enhanced: false` when no key is configured or the model cannot improve it.',
    limit: { points: 30, seconds: 60, by: 'user' },
    body: { schema: enhanceBody, examples: [{ body: 'thx, wil send it tmrw', mode: 'professional' }] },
    responses: { 200: { description: 'The text.', json: z.object({ text: z.string(), enhanced: z.boolean() }) }, 429: allowance, ...provider },
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/summary',
    summary: 'Summarise the conversation (one AI call) and refresh AI tag suggestions',
    limit: { points: 10, seconds: 60, by: 'user' },
    responses: {
      200: { description: 'The stored summary.', json: z.object({ summary: z.string(), summary_at: displayTime }) },
      422: 'There is nothing to summarise yet, no provider key is configured, or the model answered nothing.',
      429: allowance,
      ...provider,
    },
  },
  {
    ...handles,
    method: 'post',
    path: '/api/agent/suggestion/{suggestion}/outcome',
    summary: 'Report what became of a suggestion (the latest report wins)',
    limit: { points: 60, seconds: 60, by: 'user' },
    body: { schema: outcomeBody, examples: [{ outcome: 'inserted' }] },
    responses: { 200: { description: 'Recorded.', json: z.object({ id, outcome: outcomeBody.shape.outcome }) } },
  },
];
