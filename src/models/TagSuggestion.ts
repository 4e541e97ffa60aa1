import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { Tag } from './Tag';

/** A tag the AI proposes for a conversation, waiting for an agent to apply or ignore it. */
export class TagSuggestion extends Model<InferAttributes<TagSuggestion>, InferCreationAttributes<TagSuggestion>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare conversationId: number;
  declare tagId: number;
  declare confidence: number;
  declare reason: CreationOptional<string>;
  declare createdAt: CreationOptional<Date>;

  declare tag?: NonAttribute<Tag>;

  static initModel(sequelize: Sequelize): typeof TagSuggestion {
    return TagSuggestion.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        conversationId: { type: DataTypes.BIGINT, allowNull: false },
        tagId: { type: DataTypes.INTEGER, allowNull: false },
        confidence: { type: DataTypes.REAL, allowNull: false },
        reason: { type: DataTypes.STRING(500), allowNull: false, defaultValue: '' },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'tag_suggestions', underscored: true, updatedAt: false },
    );
  }
}
