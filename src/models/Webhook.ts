import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/**
 * An endpoint a workspace registered to hear its conversations' events (docs/webhooks.md). The signing
 * secret is stored sealed under APP_KEY and shown once, at creation. `failingSince` is the first failed
 * attempt since the last success: three days of it and the webhook is set inactive.
 */
export class Webhook extends Model<InferAttributes<Webhook>, InferCreationAttributes<Webhook>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare url: string;
  declare events: string[];
  declare description: CreationOptional<string | null>;
  declare secretEncrypted: string;
  declare active: CreationOptional<boolean>;
  declare failingSince: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Webhook {
    return Webhook.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        url: { type: DataTypes.STRING(2000), allowNull: false },
        events: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
        description: { type: DataTypes.STRING(255), allowNull: true },
        secretEncrypted: { type: DataTypes.TEXT, allowNull: false },
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        failingSince: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'webhooks', underscored: true },
    );
  }
}
