import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { ProviderSlug } from '../../config/providers';

/** A workspace's own API key for one AI provider, stored encrypted; lastFour is what the UI shows. */
export class ProviderKey extends Model<InferAttributes<ProviderKey>, InferCreationAttributes<ProviderKey>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare provider: ProviderSlug;
  declare keyEncrypted: string;
  declare lastFour: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ProviderKey {
    return ProviderKey.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        provider: { type: DataTypes.STRING(20), allowNull: false },
        keyEncrypted: { type: DataTypes.TEXT, allowNull: false },
        lastFour: { type: DataTypes.STRING(4), allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'provider_keys', underscored: true },
    );
  }
}
