import type { Migration } from './types';

/**
 * The IANA time zone the widget reported with the visitor's messages, on the conversation itself:
 * the visitor's own row holds the latest heartbeat's, but an API conversation has no such row.
 * Adding a nullable column without a default rewrites nothing, so this is instant on a large table.
 */
export const conversationTimezone: Migration = {
  name: '0007-conversation-timezone',
  async up({ context: db }) {
    await db.query('ALTER TABLE conversations ADD COLUMN IF NOT EXISTS timezone varchar(64)');
  },
  async down({ context: db }) {
    await db.query('ALTER TABLE conversations DROP COLUMN IF EXISTS timezone');
  },
};
