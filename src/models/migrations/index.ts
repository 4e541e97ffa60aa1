import { initialSchema } from './0001-initial-schema';
import { knowledgeTerms } from './0002-knowledge-terms';
import { inboxIndexes } from './0003-inbox-indexes';
import { tokenFamilies } from './0004-token-families';
import { oneOpenConversation } from './0005-one-open-conversation';
import { identitySub } from './0006-identity-sub';
import { conversationTimezone } from './0007-conversation-timezone';
import { inboxSearch } from './0008-inbox-search';
import { inboxCounts } from './0009-inbox-counts';
import { webhooks } from './0010-webhooks';
import { routing } from './0011-routing';
import { messageRatings } from './0012-message-ratings';
import { knowledgeLanguages } from './0013-knowledge-languages';
import { offlineFollowups } from './0014-offline-followups';
import { knowledgeEmbeddings } from './0015-knowledge-embeddings';
import { knowledgeCandidates } from './0019-knowledge-candidates';
import { knowledgeRanked } from './0020-knowledge-ranked';
import { visitorsLive } from './0021-visitors-live';
import { inboxCountsAtCommit } from './0022-inbox-counts-at-commit';
import type { Migration } from './types';

/** Every migration in order. A new one is appended here, never edited once released. */
export const migrations: Migration[] = [initialSchema, knowledgeTerms, inboxIndexes, tokenFamilies, oneOpenConversation, identitySub, conversationTimezone, inboxSearch, inboxCounts, webhooks, routing, messageRatings, knowledgeLanguages, offlineFollowups, knowledgeEmbeddings, knowledgeCandidates, knowledgeRanked, visitorsLive, inboxCountsAtCommit];
