import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { RoleName } from '../../config/roles';
import type { Company } from './Company';
import type { NotificationPreference } from './NotificationPreference';
import type { PushSubscription } from './PushSubscription';

/** A person who signs in to one workspace; the email is unique platform-wide because sign-in is by email alone. */
export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare name: string;
  declare email: string;
  declare passwordHash: string;
  declare role: RoleName;
  declare avatarUrl: CreationOptional<string | null>;
  declare timezone: CreationOptional<string | null>;
  declare suspendedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  declare company?: NonAttribute<Company>;
  declare notificationPreference?: NonAttribute<NotificationPreference | null>;
  declare pushSubscriptions?: NonAttribute<PushSubscription[]>;

  static initModel(sequelize: Sequelize): typeof User {
    return User.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        name: { type: DataTypes.STRING(120), allowNull: false },
        email: { type: DataTypes.STRING(255), allowNull: false },
        passwordHash: { type: DataTypes.TEXT, allowNull: false },
        role: { type: DataTypes.STRING(20), allowNull: false },
        avatarUrl: { type: DataTypes.TEXT, allowNull: true },
        timezone: { type: DataTypes.STRING(64), allowNull: true },
        suspendedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'users', underscored: true },
    );
  }
}
