import type { Migration } from './types';

/**
 * The inbox at 100,000 conversations without reading them on every request (docs/performance.md,
 * `inbox`).
 *
 * `inbox_counts` holds how many conversations of a workspace share each combination of the columns
 * the inbox groups read (status, handoff state, escalated, assignee, unread or not): a few dozen rows
 * per workspace, from which `inboxTotals` derives every count and group with the one group
 * definition (`GROUP_SQL`). A trigger on `conversations` keeps it in the same transaction as the
 * write, whoever writes (actors, the CLI, cascaded deletes, a bulk load), so it is exact, never
 * a cache that can lag. Closed conversations count under one key: the groups read only their status.
 * An assignee of 0 stands for nobody (a primary key has no NULLs). No foreign key to `companies`:
 * a workspace's deletion cascades to its conversations, whose trigger still writes here as they go
 * (down to zero).
 *
 * Both counter rows a move touches are written by one statement in key order, so two writes moving
 * conversations in opposite directions cannot deadlock over them. Only a write that changes the key
 * touches the table at all: a new message on an already unread conversation does not.
 *
 * The filtered lists get partial indexes matching the plain predicates of `filterSql`: the held
 * conversations per agent (`mine`) and the waiting ones, each newest first, so a page is the first
 * rows of a small index instead of a scan testing the group CASE on every conversation.
 *
 * The table, its trigger and the backfill are created under a lock that holds conversation writes
 * for the moment the backfill takes (about 0.1 s per 100,000 conversations), so no write falls
 * between the count and the trigger. The indexes are built CONCURRENTLY afterwards, as in 0003.
 */
const KEY = 'company_id, status, handoff_state, escalated, assigned_user_id, unread';

/** The counted key of a conversations row (`row`: OLD, NEW or a table alias), as `inbox_counts` columns. */
const keyOf = (row: string) => `${row}.company_id, ${row}.status,
      CASE WHEN ${row}.status = 'closed' THEN '-' ELSE ${row}.handoff_state END,
      ${row}.status <> 'closed' AND ${row}.escalated,
      CASE WHEN ${row}.status = 'closed' THEN 0 ELSE COALESCE(${row}.assigned_user_id, 0) END,
      ${row}.status <> 'closed' AND ${row}.unread_count > 0`;

/** A move from the old key to the new: the two cancel out when the key did not change. */
const TRACK = `
CREATE FUNCTION inbox_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  moves inbox_counts[] := '{}';
BEGIN
  IF TG_OP <> 'INSERT' THEN moves := moves || ROW(${keyOf('OLD')}, -1)::inbox_counts; END IF;
  IF TG_OP <> 'DELETE' THEN moves := moves || ROW(${keyOf('NEW')}, 1)::inbox_counts; END IF;
  INSERT INTO inbox_counts AS total (${KEY}, n)
    SELECT ${KEY}, sum(n) FROM unnest(moves) GROUP BY ${KEY} HAVING sum(n) <> 0 ORDER BY ${KEY}
  ON CONFLICT (${KEY}) DO UPDATE SET n = total.n + EXCLUDED.n;
  RETURN NULL;
END $$`;

const INDEXES: Array<[name: string, definition: string]> = [
  ['conversations_held', `ON conversations (company_id, assigned_user_id, last_message_at DESC, id DESC) WHERE status = 'agent'`],
  [
    'conversations_waiting',
    `ON conversations (company_id, last_message_at DESC, id DESC)
       WHERE status <> 'closed' AND (handoff_state = 'handoff_pending' OR escalated) AND assigned_user_id IS NULL`,
  ],
];

export const inboxCounts: Migration = {
  name: '0009-inbox-counts',
  async up({ context: db }) {
    await db.transaction(async (transaction) => {
      const run = (sql: string) => db.query(sql, { transaction });
      await run('LOCK TABLE conversations IN SHARE ROW EXCLUSIVE MODE');
      await run(`CREATE TABLE inbox_counts (
        company_id integer NOT NULL,
        status varchar(10) NOT NULL,
        handoff_state varchar(20) NOT NULL,
        escalated boolean NOT NULL,
        assigned_user_id integer NOT NULL,
        unread boolean NOT NULL,
        n integer NOT NULL,
        PRIMARY KEY (${KEY}))`);
      await run(TRACK);
      await run(`CREATE TRIGGER inbox_counts_track AFTER INSERT OR UPDATE OF company_id, status, handoff_state, escalated, assigned_user_id, unread_count
        OR DELETE ON conversations FOR EACH ROW EXECUTE FUNCTION inbox_counts_track()`);
      await run(`CREATE FUNCTION inbox_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN TRUNCATE inbox_counts; RETURN NULL; END $$`);
      await run('CREATE TRIGGER inbox_counts_clear AFTER TRUNCATE ON conversations FOR EACH STATEMENT EXECUTE FUNCTION inbox_counts_clear()');
      await run(`INSERT INTO inbox_counts (${KEY}, n)
        SELECT ${keyOf('c')}, count(*) FROM conversations c GROUP BY 1, 2, 3, 4, 5, 6`);
    });
    for (const [name, definition] of INDEXES) {
      await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await db.query(`CREATE INDEX CONCURRENTLY ${name} ${definition}`);
    }
  },
  async down({ context: db }) {
    for (const [name] of INDEXES) await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    await db.query('DROP TRIGGER IF EXISTS inbox_counts_clear ON conversations');
    await db.query('DROP TRIGGER IF EXISTS inbox_counts_track ON conversations');
    await db.query('DROP FUNCTION IF EXISTS inbox_counts_clear(), inbox_counts_track()');
    await db.query('DROP TABLE IF EXISTS inbox_counts');
  },
};
