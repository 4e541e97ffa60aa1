import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type SuggestionOutcome = 'generated' | 'inserted' | 'edited' | 'dismissed';

/** A reply the AI drafted for an agent, kept with what the agent did with it. */
export class AiSuggestion extends Model<InferAttributes<AiSuggestion>, InferCreationAttributes<AiSuggestion>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare conversationId: number;
  declare userId: CreationOptional<number | null>;
  declare suggestion: CreationOptional<string | null>;
  declare outcome: CreationOptional<SuggestionOutcome | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof AiSuggestion {
    return AiSuggestion.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        conversationId: { type: DataTypes.BIGINT, allowNull: false },
        userId: { type: DataTypes.INTEGER, allowNull: true },
        suggestion: { type: DataTypes.TEXT, allowNull: true },
        outcome: { type: DataTypes.STRING(12), allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'ai_suggestions', underscored: true },
    );
  }
}
