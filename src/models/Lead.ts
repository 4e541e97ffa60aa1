import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { Conversation } from './Conversation';

export type LeadStatus = 'new' | 'contacted' | 'won' | 'lost';

/** Contact details captured from a chat (at most one lead per conversation), tracked through a simple sales status. */
export class Lead extends Model<InferAttributes<Lead>, InferCreationAttributes<Lead>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare conversationId: CreationOptional<number | null>;
  declare name: CreationOptional<string | null>;
  declare email: CreationOptional<string | null>;
  declare phone: CreationOptional<string | null>;
  declare status: CreationOptional<LeadStatus>;
  declare source: CreationOptional<string>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  declare conversation?: NonAttribute<Conversation | null>;

  static initModel(sequelize: Sequelize): typeof Lead {
    return Lead.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        conversationId: { type: DataTypes.BIGINT, allowNull: true, unique: true },
        name: { type: DataTypes.STRING(255), allowNull: true },
        email: { type: DataTypes.STRING(255), allowNull: true },
        phone: { type: DataTypes.STRING(64), allowNull: true },
        status: { type: DataTypes.STRING(12), allowNull: false, defaultValue: 'new' },
        source: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'chat' },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'leads', underscored: true },
    );
  }
}
