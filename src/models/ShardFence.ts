import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** Lease fence for one actor shard: each acquisition bumps the epoch, and writes from an older epoch are refused. */
export class ShardFence extends Model<InferAttributes<ShardFence>, InferCreationAttributes<ShardFence>> {
  declare shard: number;
  declare epoch: CreationOptional<number>;
  declare owner: CreationOptional<string | null>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ShardFence {
    return ShardFence.init(
      {
        shard: { type: DataTypes.INTEGER, primaryKey: true },
        epoch: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        owner: { type: DataTypes.STRING(200), allowNull: true },
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'shard_fences', underscored: true, createdAt: false },
    );
  }
}
