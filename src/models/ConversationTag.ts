import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type TagSource = 'agent' | 'ai';

/** A tag applied to a conversation, remembering whether an agent or the AI applied it. */
export class ConversationTag extends Model<InferAttributes<ConversationTag>, InferCreationAttributes<ConversationTag>> {
  declare conversationId: number;
  declare tagId: number;
  declare companyId: number;
  declare source: CreationOptional<TagSource>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ConversationTag {
    return ConversationTag.init(
      {
        conversationId: { type: DataTypes.BIGINT, primaryKey: true },
        tagId: { type: DataTypes.INTEGER, primaryKey: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        source: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'agent' },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'conversation_tags', underscored: true, updatedAt: false },
    );
  }
}
