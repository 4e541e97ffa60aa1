import type { Migration } from './types';
import { accountsSql } from './initial-schema/accounts';
import { chatbotsSql } from './initial-schema/chatbots';
import { conversationsSql } from './initial-schema/conversations';
import { catalogueSql } from './initial-schema/catalogue';
import { aiSql } from './initial-schema/ai';
import { operationsSql } from './initial-schema/operations';

/**
 * The whole initial data model. Every tenant table carries company_id; hot queries have indexes:
 * the inbox (company, status, last activity), the v1 conversation list (chatbot, last activity),
 * retrieval (GIN over a generated tsvector), the usage ledger (company, month).
 */
export const initialSchema: Migration = {
  name: '0001-initial-schema',
  async up({ context: db }) {
    // In dependency order (each part references only tables created before it), all or nothing.
    await db.transaction(async (transaction) => {
      for (const sql of [accountsSql, chatbotsSql, conversationsSql, catalogueSql, aiSql, operationsSql]) {
        await db.query(sql, { transaction });
      }
    });
  },
  async down({ context: db }) {
    await db.query(`
      DROP TABLE IF EXISTS shard_fences, notification_preferences, push_subscriptions, ai_suggestions,
        usage_records, integrations, provider_keys, leads, notes, canned_replies, tag_suggestions,
        conversation_tags, tags, conversation_events, messages, conversations, page_views, visitors,
        knowledge_chunks, knowledge_sources, chatbots, access_tokens, users, companies CASCADE;
    `);
  },
};
