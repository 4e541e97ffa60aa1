import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { ProviderSlug } from '../../config/providers';

export type UsageKind = 'reply' | 'suggest' | 'enhance' | 'summary' | 'tagging';

/** One AI call in the append-only usage ledger; analytics and the monthly allowance are sums over these rows. */
export class UsageRecord extends Model<InferAttributes<UsageRecord>, InferCreationAttributes<UsageRecord>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare chatbotId: CreationOptional<number | null>;
  declare conversationId: CreationOptional<number | null>;
  declare userId: CreationOptional<number | null>;
  declare kind: UsageKind;
  declare provider: ProviderSlug;
  declare model: string;
  declare tokensIn: CreationOptional<number>;
  declare tokensOut: CreationOptional<number>;
  declare costMicroCents: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof UsageRecord {
    return UsageRecord.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        chatbotId: { type: DataTypes.INTEGER, allowNull: true },
        conversationId: { type: DataTypes.BIGINT, allowNull: true },
        userId: { type: DataTypes.INTEGER, allowNull: true },
        kind: { type: DataTypes.STRING(10), allowNull: false },
        provider: { type: DataTypes.STRING(20), allowNull: false },
        model: { type: DataTypes.STRING(120), allowNull: false },
        tokensIn: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        tokensOut: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        costMicroCents: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'usage_records', underscored: true, updatedAt: false },
    );
  }
}
