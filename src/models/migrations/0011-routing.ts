import type { Migration } from './types';

/**
 * Routing (docs/routing.md): an agent's availability and own capacity, when they were last given a
 * conversation (the tie-break), and on a conversation when the router gave it to its holder (the
 * accept timer's start) and who let it lapse (passed over on the next try). The workspace's routing
 * settings live in `companies.settings.routing`. The partial index is the queue itself: waiting,
 * unassigned conversations of a workspace in arrival order. Nullable columns and a constant default
 * rewrite nothing, so this is instant on large tables.
 */
export const routing: Migration = {
  name: '0011-routing',
  async up({ context: db }) {
    await db.query(`ALTER TABLE users ADD COLUMN IF NOT EXISTS routing_status varchar(10) NOT NULL DEFAULT 'online'`);
    await db.query('ALTER TABLE users ADD COLUMN IF NOT EXISTS capacity integer');
    await db.query('ALTER TABLE users ADD COLUMN IF NOT EXISTS last_assigned_at timestamptz');
    await db.query('ALTER TABLE conversations ADD COLUMN IF NOT EXISTS routed_at timestamptz');
    await db.query('ALTER TABLE conversations ADD COLUMN IF NOT EXISTS passed_over_user_id integer');
    await db.query(
      `CREATE INDEX IF NOT EXISTS conversations_routing_queue ON conversations (company_id, handoff_requested_at, id)
       WHERE handoff_state = 'handoff_pending' AND assigned_user_id IS NULL`,
    );
    await db.query(`CREATE INDEX IF NOT EXISTS conversations_agent_load ON conversations (assigned_user_id) WHERE status = 'agent'`);
  },
  async down({ context: db }) {
    await db.query('DROP INDEX IF EXISTS conversations_agent_load');
    await db.query('DROP INDEX IF EXISTS conversations_routing_queue');
    await db.query('ALTER TABLE conversations DROP COLUMN IF EXISTS passed_over_user_id');
    await db.query('ALTER TABLE conversations DROP COLUMN IF EXISTS routed_at');
    await db.query('ALTER TABLE users DROP COLUMN IF EXISTS last_assigned_at');
    await db.query('ALTER TABLE users DROP COLUMN IF EXISTS capacity');
    await db.query('ALTER TABLE users DROP COLUMN IF EXISTS routing_status');
  },
};
