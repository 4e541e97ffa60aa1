import type { Migration } from './types';

/**
 * The live visitors list's index (`listLiveVisitors`: a workspace's visitors seen lately, newest
 * first) made partial, on visitors with a chatbot, the only ones that list can show (it joins
 * `chatbots` and now says `chatbot_id IS NOT NULL` too). Same columns and reads; what changes is
 * that a lookup of one visitor by workspace and key can no longer use it.
 *
 * Why: on a table Postgres has no statistics for yet (new, or autovacuum off) the two indexes led by
 * `company_id` cost the same to the planner for that lookup, and it picked `visitors_recent`, which
 * then walks every visitor of the workspace. A prepared statement keeps the plan it made when the
 * table was empty, so the first beat's row read (`loadVisitor`) grew with the table: 2.8 ms per
 * visitor at 20,000 visitors (docs/performance.md, "Arrivals, seventh round"). Now only the unique
 * index (company_id, visitor_key) fits such a lookup, whatever the statistics say.
 *
 * CONCURRENTLY, as 0003: the build does not block visitors' writes; a build that failed halfway is
 * dropped on the rerun. The new index is built before the old one goes, so the list always has one.
 */
export const visitorsLive: Migration = {
  name: '0021-visitors-live',
  async up({ context: db }) {
    await db.query('DROP INDEX CONCURRENTLY IF EXISTS visitors_live');
    await db.query('CREATE INDEX CONCURRENTLY visitors_live ON visitors (company_id, last_seen_at DESC) WHERE chatbot_id IS NOT NULL');
    await db.query('DROP INDEX CONCURRENTLY IF EXISTS visitors_recent');
  },
  async down({ context: db }) {
    await db.query('DROP INDEX CONCURRENTLY IF EXISTS visitors_recent');
    await db.query('CREATE INDEX CONCURRENTLY visitors_recent ON visitors (company_id, last_seen_at DESC)');
    await db.query('DROP INDEX CONCURRENTLY IF EXISTS visitors_live');
  },
};
