import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { ProviderSlug } from '../../config/providers';
import type { Conversation } from './Conversation';
import type { User } from './User';

export type MessageRole = 'visitor' | 'assistant' | 'agent' | 'system';

/** A visitor's verdict on an AI answer. */
export type MessageRating = 'up' | 'down';

/** One chat message; an assistant reply points at the visitor message it answers through replyToId. */
export class Message extends Model<InferAttributes<Message>, InferCreationAttributes<Message>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare conversationId: number;
  declare role: MessageRole;
  declare content: string;
  declare authorUserId: CreationOptional<number | null>;
  declare replyToId: CreationOptional<number | null>;
  declare clientId: CreationOptional<string | null>;
  declare provider: CreationOptional<ProviderSlug | null>;
  declare model: CreationOptional<string | null>;
  declare tokensIn: CreationOptional<number | null>;
  declare tokensOut: CreationOptional<number | null>;
  declare sources: CreationOptional<Array<{ title: string; url: string }> | null>;
  declare deliveredAt: CreationOptional<Date | null>;
  declare rating: CreationOptional<MessageRating | null>;
  declare ratingComment: CreationOptional<string | null>;
  declare ratedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  declare conversation?: NonAttribute<Conversation>;
  declare author?: NonAttribute<User | null>;

  static initModel(sequelize: Sequelize): typeof Message {
    return Message.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        conversationId: { type: DataTypes.BIGINT, allowNull: false },
        role: { type: DataTypes.STRING(10), allowNull: false },
        content: { type: DataTypes.TEXT, allowNull: false },
        authorUserId: { type: DataTypes.INTEGER, allowNull: true },
        replyToId: { type: DataTypes.BIGINT, allowNull: true },
        clientId: { type: DataTypes.STRING(64), allowNull: true },
        provider: { type: DataTypes.STRING(20), allowNull: true },
        model: { type: DataTypes.STRING(120), allowNull: true },
        tokensIn: { type: DataTypes.INTEGER, allowNull: true },
        tokensOut: { type: DataTypes.INTEGER, allowNull: true },
        sources: { type: DataTypes.JSONB, allowNull: true },
        deliveredAt: { type: DataTypes.DATE, allowNull: true },
        rating: { type: DataTypes.STRING(4), allowNull: true },
        ratingComment: { type: DataTypes.STRING(1000), allowNull: true },
        ratedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'messages', underscored: true, updatedAt: false },
    );
  }
}
