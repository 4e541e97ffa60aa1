import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type EventSource = 'visitor' | 'agent' | 'ai' | 'system';

/** An entry in a conversation's timeline (handoff, assignment, status change...), recorded with who caused it. */
export class ConversationEvent extends Model<InferAttributes<ConversationEvent>, InferCreationAttributes<ConversationEvent>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare conversationId: number;
  declare type: string;
  declare source: EventSource;
  declare userId: CreationOptional<number | null>;
  declare data: CreationOptional<Record<string, unknown>>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ConversationEvent {
    return ConversationEvent.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        conversationId: { type: DataTypes.BIGINT, allowNull: false },
        type: { type: DataTypes.STRING(30), allowNull: false },
        source: { type: DataTypes.STRING(10), allowNull: false },
        userId: { type: DataTypes.INTEGER, allowNull: true },
        data: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'conversation_events', underscored: true, updatedAt: false },
    );
  }
}
