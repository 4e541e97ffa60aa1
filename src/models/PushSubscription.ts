import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A browser's Web Push endpoint and keys for one user, used to notify agents of new chats. */
export class PushSubscription extends Model<InferAttributes<PushSubscription>, InferCreationAttributes<PushSubscription>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare userId: number;
  declare endpoint: string;
  declare p256dh: string;
  declare auth: string;
  declare deviceName: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PushSubscription {
    return PushSubscription.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        userId: { type: DataTypes.INTEGER, allowNull: false },
        endpoint: { type: DataTypes.STRING(2048), allowNull: false, unique: true },
        p256dh: { type: DataTypes.STRING(255), allowNull: false },
        auth: { type: DataTypes.STRING(255), allowNull: false },
        deviceName: { type: DataTypes.STRING(120), allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'push_subscriptions', underscored: true },
    );
  }
}
