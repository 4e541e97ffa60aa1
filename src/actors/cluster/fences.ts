import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

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
  constructor(private readonly sequelize: Sequelize) {}

  /** Records a new ownership of the shard and returns its epoch. */
  async bump(shard: number, owner: string): Promise<number> {
    const [row] = await this.sequelize.query<{ epoch: number }>(
      `INSERT INTO shard_fences (shard, epoch, owner, updated_at) VALUES (:shard, 1, :owner, now())
       ON CONFLICT (shard) DO UPDATE SET epoch = shard_fences.epoch + 1, owner = EXCLUDED.owner, updated_at = now()
       RETURNING epoch`,
      { replacements: { shard, owner }, type: QueryTypes.SELECT },
    );
    return row!.epoch;
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
