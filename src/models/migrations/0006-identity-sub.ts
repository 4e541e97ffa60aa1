import type { Migration } from './types';

const INDEX = 'conversations_by_identity';

/**
 * The customer a verified identity token names (its `sub`), as a column of its own: the widget finds
 * a signed-in customer's latest conversation on a chatbot by it, from any device. The token's claims
 * were already kept in `identity` (jsonb); they are copied over for conversations verified before.
 *
 * Partial: most visitors are anonymous, and their conversations need no entry. CONCURRENTLY, as 0003:
 * the build does not block visitors' writes; a build that failed halfway is dropped on the rerun.
 */
export const identitySub: Migration = {
  name: '0006-identity-sub',
  async up({ context: db }) {
    await db.query('ALTER TABLE conversations ADD COLUMN IF NOT EXISTS identity_sub varchar(255)');
    await db.query(`UPDATE conversations SET identity_sub = left(identity->>'sub', 255) WHERE identity_sub IS NULL AND identity->>'sub' <> ''`);
    await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${INDEX}`);
    await db.query(`CREATE INDEX CONCURRENTLY ${INDEX} ON conversations (chatbot_id, identity_sub, created_at DESC) WHERE identity_sub IS NOT NULL`);
  },
  async down({ context: db }) {
    await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${INDEX}`);
    await db.query('ALTER TABLE conversations DROP COLUMN IF EXISTS identity_sub');
  },
};
