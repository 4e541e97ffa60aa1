import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type IntegrationKind = 'shopify' | 'stripe';

/** A workspace's connection to a commerce service (one per kind), with its secret stored encrypted. */
export class Integration extends Model<InferAttributes<Integration>, InferCreationAttributes<Integration>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare kind: IntegrationKind;
  declare settings: CreationOptional<Record<string, unknown>>;
  declare secretEncrypted: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Integration {
    return Integration.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        kind: { type: DataTypes.STRING(20), allowNull: false },
        settings: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        secretEncrypted: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'integrations', underscored: true },
    );
  }
}
