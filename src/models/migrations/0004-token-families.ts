import type { Migration } from './types';

/**
 * Token families: a sign-in starts one, and every refresh of its tokens joins it, so signing out
 * revokes the whole chain (a refreshed token must not outlive the logout of the one it came from).
 * Tokens issued before this migration each become a family of their own.
 */
export const tokenFamilies: Migration = {
  name: '0004-token-families',
  async up({ context: db }) {
    await db.query('ALTER TABLE access_tokens ADD COLUMN family uuid NOT NULL DEFAULT gen_random_uuid()');
    await db.query('CREATE INDEX access_tokens_family ON access_tokens (family) WHERE revoked_at IS NULL');
  },
  async down({ context: db }) {
    await db.query('ALTER TABLE access_tokens DROP COLUMN family');
  },
};
