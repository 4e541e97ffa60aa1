import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { RoleName } from '../../config/roles';
import type { Company } from './Company';
import type { NotificationPreference } from './NotificationPreference';
import type { PushSubscription } from './PushSubscription';

export type RoutingStatus = 'online' | 'away';

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
  /** `online` or `away` (PATCH /api/agent/me/status): only online agents are given conversations by the router. */
  declare routingStatus: CreationOptional<RoutingStatus>;
  /** Open human conversations the router gives this agent at most; null = the workspace's capacity. */
  declare capacity: CreationOptional<number | null>;
  declare lastAssignedAt: CreationOptional<Date | null>;
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
        routingStatus: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'online' },
        capacity: { type: DataTypes.INTEGER, allowNull: true },
        lastAssignedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'users', underscored: true },
    );
  }
}
