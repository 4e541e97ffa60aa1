import type { Migration } from './types';

const EVENTS = 'INSERT OR UPDATE OF company_id, status, handoff_state, escalated, assigned_user_id, unread_count OR DELETE';

/**
 * `inbox_counts` (0009) updated at commit instead of at each statement: the same trigger function,
 * now a constraint trigger deferred to the end of the transaction.
 *
 * Why: a workspace has a few dozen counter rows, and every write moving a conversation between keys
 * (an agent's first reply takes it over, a visitor's message makes it unread) updates two of them.
 * Fired at the statement, the trigger held those rows locked for the rest of the transaction: the
 * conversation actor's further statements and the commit, each a round trip to the node. So every
 * such write of one workspace waited for the previous one to finish. When many come at once (in the
 * chaos suite, the probe's agent replies taking 24 conversations over right after Redis is back),
 * they queue: 34 lock waits of 52-242 ms in one run, none with this migration (docs/chaos.md, "Issue
 * 23, eighth round"). Deferred, the rows are locked from the commit's own trigger pass until the
 * commit ends: no round trip in between.
 *
 * The counts stay exact: each row event still moves its own OLD key to its NEW one, whenever it
 * runs. Inside a writing transaction the table lags that transaction's own writes until it commits;
 * nothing reads it there. A transaction can no longer TRUNCATE `conversations` after writing rows
 * of it (Postgres refuses while trigger events are pending), which nothing does.
 *
 * Drop and create in one transaction: no write falls between them uncounted.
 */
export const inboxCountsAtCommit: Migration = {
  name: '0022-inbox-counts-at-commit',
  async up({ context: db }) {
    await db.transaction(async (transaction) => {
      await db.query('DROP TRIGGER inbox_counts_track ON conversations', { transaction });
      await db.query(
        `CREATE CONSTRAINT TRIGGER inbox_counts_track AFTER ${EVENTS} ON conversations
           DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION inbox_counts_track()`,
        { transaction },
      );
    });
  },
  async down({ context: db }) {
    await db.transaction(async (transaction) => {
      await db.query('DROP TRIGGER inbox_counts_track ON conversations', { transaction });
      await db.query(`CREATE TRIGGER inbox_counts_track AFTER ${EVENTS} ON conversations FOR EACH ROW EXECUTE FUNCTION inbox_counts_track()`, { transaction });
    });
  },
};
