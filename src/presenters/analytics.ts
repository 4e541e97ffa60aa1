import type { MonthlyAnalytics } from '../domain/usage/analytics';
import { isoWithOffset } from './time';

// A micro-cent is a millionth of a cent: 10^8 to a whole currency unit.
const MICRO_CENTS_PER_UNIT = 100_000_000;

export const presentPortalAnalytics = (analytics: MonthlyAnalytics) => ({
  period: isoWithOffset(analytics.since).slice(0, 7),
  since: isoWithOffset(analytics.since),
  conversations: analytics.conversations,
  resolved_by_ai: analytics.resolvedByAi,
  ratings_up: analytics.ratingsUp,
  ratings_down: analytics.ratingsDown,
  messages: {
    ai_replies: analytics.aiReplies,
    human_replies: analytics.humanReplies,
    visitor_messages: analytics.visitorMessages,
    total: analytics.aiReplies + analytics.humanReplies + analytics.visitorMessages,
  },
  tokens: analytics.tokens,
  // Rounded to a millionth of a unit so float noise never shows in the JSON.
  cost: Math.round((analytics.costMicroCents / MICRO_CENTS_PER_UNIT) * 1e6) / 1e6,
  messages_used: analytics.aiCalls,
});
