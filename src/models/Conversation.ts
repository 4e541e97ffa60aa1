import { DataTypes, Model, fn, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { Chatbot } from './Chatbot';
import type { ConversationEvent } from './ConversationEvent';
import type { Message } from './Message';
import type { Note } from './Note';
import type { Tag } from './Tag';
import type { TagSuggestion } from './TagSuggestion';
import type { User } from './User';

export type ConversationStatus = 'bot' | 'agent' | 'closed';
export type HandoffState = 'bot_active' | 'handoff_pending' | 'human_connected';

/** A chat between one visitor and a chatbot, handed to a human when needed; seq/version fence realtime actor writes. */
export class Conversation extends Model<InferAttributes<Conversation>, InferCreationAttributes<Conversation>> {
  declare id: CreationOptional<number>;
  declare publicId: CreationOptional<string>;
  declare companyId: number;
  declare chatbotId: number;
  declare visitorKey: string;
  declare channel: CreationOptional<string>;
  declare status: CreationOptional<ConversationStatus>;
  declare handoffState: CreationOptional<HandoffState>;
  declare escalated: CreationOptional<boolean>;
  declare resolution: CreationOptional<string | null>;
  declare resolvedAt: CreationOptional<Date | null>;
  declare resolvedByAi: CreationOptional<boolean>;
  declare assignedUserId: CreationOptional<number | null>;
  declare handoffRequestedAt: CreationOptional<Date | null>;
  /** When the router (auto mode) gave the conversation to its holder: the accept timer runs from here. */
  declare routedAt: CreationOptional<Date | null>;
  /** The agent who let the accept timer lapse: the router offers it to someone else first. */
  declare passedOverUserId: CreationOptional<number | null>;
  declare slaBreachedAt: CreationOptional<Date | null>;
  declare visitorName: CreationOptional<string | null>;
  declare visitorEmail: CreationOptional<string | null>;
  declare visitorPhone: CreationOptional<string | null>;
  declare identity: CreationOptional<Record<string, unknown> | null>;
  /** The verified identity's `sub` (the customer's own user id): their conversations on any device. */
  declare identitySub: CreationOptional<string | null>;
  declare meta: CreationOptional<Record<string, unknown>>;
  declare prechat: CreationOptional<Array<{ field: string; value: string }>>;
  declare locale: CreationOptional<string | null>;
  /** The IANA zone the widget reported with the visitor's messages. */
  declare timezone: CreationOptional<string | null>;
  declare detectedLanguage: CreationOptional<string | null>;
  declare summary: CreationOptional<string | null>;
  declare summaryAt: CreationOptional<Date | null>;
  declare intent: CreationOptional<string | null>;
  declare revenueCents: CreationOptional<number | null>;
  declare revenueCurrency: CreationOptional<string | null>;
  declare routedBy: CreationOptional<string>;
  declare blocked: CreationOptional<boolean>;
  declare abuseStrikes: CreationOptional<number>;
  declare unreadCount: CreationOptional<number>;
  declare messageCount: CreationOptional<number>;
  declare lastMessagePreview: CreationOptional<string | null>;
  declare seq: CreationOptional<number>;
  declare version: CreationOptional<number>;
  declare lastMessageAt: CreationOptional<Date>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  declare chatbot?: NonAttribute<Chatbot>;
  declare assignee?: NonAttribute<User | null>;
  declare messages?: NonAttribute<Message[]>;
  declare events?: NonAttribute<ConversationEvent[]>;
  declare notes?: NonAttribute<Note[]>;
  declare tags?: NonAttribute<Tag[]>;
  declare tagSuggestions?: NonAttribute<TagSuggestion[]>;

  static initModel(sequelize: Sequelize): typeof Conversation {
    return Conversation.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        // fn() defaults leave the value to PostgreSQL; with no default, allowNull: false would reject the create before the INSERT.
        publicId: { type: DataTypes.UUID, allowNull: false, unique: true, defaultValue: fn('gen_random_uuid') },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        chatbotId: { type: DataTypes.INTEGER, allowNull: false },
        visitorKey: { type: DataTypes.STRING(100), allowNull: false },
        channel: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'widget' },
        status: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'bot' },
        handoffState: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'bot_active' },
        escalated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        resolution: { type: DataTypes.STRING(20), allowNull: true },
        resolvedAt: { type: DataTypes.DATE, allowNull: true },
        resolvedByAi: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        assignedUserId: { type: DataTypes.INTEGER, allowNull: true },
        handoffRequestedAt: { type: DataTypes.DATE, allowNull: true },
        routedAt: { type: DataTypes.DATE, allowNull: true },
        passedOverUserId: { type: DataTypes.INTEGER, allowNull: true },
        slaBreachedAt: { type: DataTypes.DATE, allowNull: true },
        visitorName: { type: DataTypes.STRING(255), allowNull: true },
        visitorEmail: { type: DataTypes.STRING(255), allowNull: true },
        visitorPhone: { type: DataTypes.STRING(64), allowNull: true },
        identity: { type: DataTypes.JSONB, allowNull: true },
        identitySub: { type: DataTypes.STRING(255), allowNull: true },
        meta: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        prechat: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        locale: { type: DataTypes.STRING(35), allowNull: true },
        timezone: { type: DataTypes.STRING(64), allowNull: true },
        detectedLanguage: { type: DataTypes.STRING(35), allowNull: true },
        summary: { type: DataTypes.TEXT, allowNull: true },
        summaryAt: { type: DataTypes.DATE, allowNull: true },
        intent: { type: DataTypes.STRING(120), allowNull: true },
        revenueCents: { type: DataTypes.BIGINT, allowNull: true },
        revenueCurrency: { type: DataTypes.CHAR(3), allowNull: true },
        routedBy: { type: DataTypes.STRING(40), allowNull: false, defaultValue: 'ai' },
        blocked: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        abuseStrikes: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        unreadCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        messageCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastMessagePreview: { type: DataTypes.STRING(200), allowNull: true },
        seq: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastMessageAt: { type: DataTypes.DATE, allowNull: false, defaultValue: fn('now') },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'conversations', underscored: true },
    );
  }
}
