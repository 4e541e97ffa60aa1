import type { Migration } from './types';

/**
 * A visitor's thumbs up or down on an AI answer (`POST /widget/{key}/messages/{id}/feedback`), on the
 * answer's own row: one rating per answer, a repeat replaces it. Nullable columns without a default
 * rewrite nothing, so this is instant on a large table; the monthly counts read the rows the
 * analytics already read (this month's messages of the workspace), so no index is added.
 */
export const messageRatings: Migration = {
  name: '0012-message-ratings',
  async up({ context: db }) {
    await db.query(`ALTER TABLE messages
      ADD COLUMN IF NOT EXISTS rating varchar(4),
      ADD COLUMN IF NOT EXISTS rating_comment varchar(1000),
      ADD COLUMN IF NOT EXISTS rated_at timestamptz`);
  },
  async down({ context: db }) {
    await db.query('ALTER TABLE messages DROP COLUMN IF EXISTS rating, DROP COLUMN IF EXISTS rating_comment, DROP COLUMN IF EXISTS rated_at');
  },
};
