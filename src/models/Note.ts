import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { User } from './User';

/** An internal note on a conversation, visible to agents and never to the visitor. */
export class Note extends Model<InferAttributes<Note>, InferCreationAttributes<Note>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare conversationId: number;
  declare userId: CreationOptional<number | null>;
  declare body: string;
  declare createdAt: CreationOptional<Date>;

  declare author?: NonAttribute<User | null>;

  static initModel(sequelize: Sequelize): typeof Note {
    return Note.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        conversationId: { type: DataTypes.BIGINT, allowNull: false },
        userId: { type: DataTypes.INTEGER, allowNull: true },
        body: { type: DataTypes.STRING(4000), allowNull: false },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'notes', underscored: true, updatedAt: false },
    );
  }
}
