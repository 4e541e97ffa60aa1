import { DatabaseError, QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { plainRows } from '../../db/plainRows';

/** An actor wrote under an epoch older than the shard's current one: another node owns the shard now. */
export class StaleEpochError extends Error {
  override name = 'StaleEpochError';
  constructor(
    readonly shard: number,
    readonly epoch: number,
    readonly current: number,
  ) {
    super(`Shard ${shard} is at epoch ${current}; a write under epoch ${epoch} is refused`);
  }
}

/**
 * Fencing tokens in Postgres (`shard_fences`): every lease acquisition bumps the shard's epoch, and
 * every actor write checks its epoch in the same transaction, so a paused or partitioned old owner
 * can never land a write after a new owner took over.
 */
export class ShardFences {
  constructor(
    private readonly sequelize: Sequelize,
    /** How long a fenced write may sit idle inside its transaction: the lease TTL. */
    private readonly idleLimitMs = 12_000,
  ) {}

  /**
   * Records a new ownership of each shard and returns their epochs. A shard whose fence row is held by
   * an old owner's in-flight write is skipped (not waited for): the caller releases it and retries,
   * so one frozen node can never stall a whole batch of takeovers.
   */
  async bump(shards: readonly number[], owner: string): Promise<Map<number, number>> {
    if (!shards.length) return new Map();
    const replacements = { shards: [...shards], owner };
    const rows = await this.sequelize.transaction(async (transaction) => {
      await this.sequelize.query(
        `INSERT INTO shard_fences (shard, epoch, owner, updated_at) SELECT s, 0, :owner, now() FROM unnest(ARRAY[:shards]::int[]) AS s
         ON CONFLICT (shard) DO NOTHING`,
        { replacements, transaction },
      );
      return this.sequelize.query<{ shard: number; epoch: number }>(
        `UPDATE shard_fences SET epoch = epoch + 1, owner = :owner, updated_at = now()
         WHERE shard IN (SELECT shard FROM shard_fences WHERE shard IN (:shards) ORDER BY shard FOR UPDATE SKIP LOCKED)
         RETURNING shard, epoch`,
        { replacements, type: QueryTypes.SELECT, transaction },
      );
    });
    return new Map(rows.map((row) => [row.shard, row.epoch]));
  }

  /**
   * A fenced write: `work` runs in a transaction that commits only while `epoch` is the shard's current
   * one. Postgres ends the transaction if it idles past the lease TTL (its node frozen mid-write), so
   * the fence row it locks cannot hold off the shard's next owner for longer than that.
   */
  write<T>(shard: number, epoch: number, work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.sequelize.transaction(async (transaction) => {
      // One round trip for both: `set_config(..., true)` is SET LOCAL, and the fence row is locked as in assertCurrent.
      const [row] = await this.sequelize.query<{ epoch: number | null }>(
        `SELECT set_config('idle_in_transaction_session_timeout', :idle, true), (SELECT epoch FROM shard_fences WHERE shard = :shard FOR SHARE) AS epoch`,
        { replacements: { shard, idle: String(Math.round(this.idleLimitMs)) }, type: QueryTypes.SELECT, transaction },
      );
      const current = row?.epoch ?? 0;
      if (current !== epoch) throw new StaleEpochError(shard, epoch, current);
      return work(transaction);
    });
  }

  /**
   * Inside an actor's write transaction: locks the fence row against a concurrent bump until commit,
   * and throws StaleEpochError when the shard has moved on.
   */
  async assertCurrent(shard: number, epoch: number, transaction: Transaction): Promise<void> {
    const [row] = await this.sequelize.query<{ epoch: number }>('SELECT epoch FROM shard_fences WHERE shard = :shard FOR SHARE', {
      replacements: { shard },
      type: QueryTypes.SELECT,
      transaction,
    });
    const current = row?.epoch ?? 0;
    if (current !== epoch) throw new StaleEpochError(shard, epoch, current);
  }
}

/** A fenced statement's own part: its CTEs (`name AS (...)`, comma separated), the columns of its one result row, their bind values from `$3`. */
export interface FencedStatement {
  ctes: string;
  columns: string;
  bind: unknown[];
}

/**
 * A fenced write as one statement, committed on its own (no transaction round trips). `build` gets
 * the name of a CTE that holds one row while `epoch` is the shard's current one and none otherwise:
 * every write of the statement must read it (`INSERT ... SELECT ... FROM <current>`, `UPDATE ...
 * WHERE EXISTS (SELECT 1 FROM <current>)`), so under a stale epoch nothing is written. The fence row
 * is locked FOR SHARE before any write (the writes read the CTE that locks it) until the statement
 * commits, as a fenced transaction holds it, so a bump cannot slip in between; and a single statement
 * never sits idle in a transaction, so it needs no idle limit. Returns the statement's one row, or
 * throws StaleEpochError when the shard has moved on (nothing written).
 */
export async function fencedStatement<R extends object>(sequelize: Sequelize, shard: number, epoch: number, build: (current: string) => FencedStatement): Promise<R> {
  const { ctes, columns, bind } = build('fence_current');
  // Plain rows on a prepared statement: its texts come in a few shapes (the columns a line changes), each parsed and planned once per connection.
  const rows = await plainRows<R & { fence_epoch: number | string | null }>(sequelize, fencedText(ctes, columns), [shard, epoch, ...bind], { prepared: true }).catch((error: unknown) => {
    throw uniqueViolation(error) ?? error;
  });
  const row = rows[0];
  const current = Number(row?.fence_epoch ?? 0);
  if (!row || current !== epoch) throw new StaleEpochError(shard, epoch, current);
  return row;
}

/** At most this many statement texts are remembered; their number is small (a few shapes per write), this only bounds a mistake. */
const FENCED_TEXTS = 200;
const fencedTexts = new Map<string, Map<string, string>>();

/**
 * The whole statement's text, the same string for the same parts: a caller that reuses its parts'
 * strings (lineStatement.ts) then hands `plainRows` a text whose hash and prepared name are known.
 */
function fencedText(ctes: string, columns: string): string {
  let byColumns = fencedTexts.get(ctes);
  let text = byColumns?.get(columns);
  if (text !== undefined) return text;
  text = `WITH fence_row AS (SELECT epoch FROM shard_fences WHERE shard = $1::int FOR SHARE),
     fence_current AS (SELECT 1 AS current WHERE coalesce((SELECT epoch FROM fence_row), 0) = $2::bigint),
     ${ctes}
     SELECT coalesce((SELECT epoch FROM fence_row), 0) AS fence_epoch, ${columns}`;
  if (!byColumns) {
    if (fencedTexts.size >= FENCED_TEXTS) fencedTexts.clear();
    fencedTexts.set(ctes, (byColumns = new Map()));
  }
  byColumns.set(columns, text);
  return text;
}

/** A unique violation as Sequelize's own queries report it (`UniqueConstraintError`), which callers of a write test for. */
function uniqueViolation(error: unknown): UniqueConstraintError | undefined {
  if (!(error instanceof DatabaseError) || (error.parent as { code?: string }).code !== '23505') return undefined;
  // The driver's error as Sequelize keeps it (with `sql`), so `breaksOneOpenPerVisitor` and others read its constraint as before.
  return new UniqueConstraintError({ message: error.parent.message, parent: error.parent as Error & { sql: string } });
}
