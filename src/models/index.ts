import type { Model, ModelStatic, NonAttribute, Sequelize, Transaction } from 'sequelize';
import { settingsWritten } from '../db/settingsEpoch';
import { AccessToken } from './AccessToken';
import { AiSuggestion } from './AiSuggestion';
import { CannedReply } from './CannedReply';
import { Chatbot } from './Chatbot';
import { Company } from './Company';
import { Conversation } from './Conversation';
import { ConversationEvent } from './ConversationEvent';
import { ConversationTag } from './ConversationTag';
import { Integration } from './Integration';
import { KnowledgeChunk } from './KnowledgeChunk';
import { KnowledgeSource } from './KnowledgeSource';
import { Lead } from './Lead';
import { Message } from './Message';
import { Note } from './Note';
import { NotificationPreference } from './NotificationPreference';
import { PageView } from './PageView';
import { ProviderKey } from './ProviderKey';
import { PushSubscription } from './PushSubscription';
import { ShardFence } from './ShardFence';
import { Tag } from './Tag';
import { TagSuggestion } from './TagSuggestion';
import { UsageRecord } from './UsageRecord';
import { User } from './User';
import { Visitor } from './Visitor';
import { Webhook } from './Webhook';

export {
  AccessToken,
  AiSuggestion,
  CannedReply,
  Chatbot,
  Company,
  Conversation,
  ConversationEvent,
  ConversationTag,
  Integration,
  KnowledgeChunk,
  KnowledgeSource,
  Lead,
  Message,
  Note,
  NotificationPreference,
  PageView,
  ProviderKey,
  PushSubscription,
  ShardFence,
  Tag,
  TagSuggestion,
  UsageRecord,
  User,
  Visitor,
  Webhook,
};
export type { BrandSettings } from './Company';
export type { ConversationStatus, HandoffState } from './Conversation';
export type { EventSource } from './ConversationEvent';
export type { TagSource } from './ConversationTag';
export type { IntegrationKind } from './Integration';
export type { KnowledgeSourceStatus, KnowledgeSourceType } from './KnowledgeSource';
export type { LeadStatus } from './Lead';
export type { MessageRating, MessageRole } from './Message';
export type { NotificationEvents } from './NotificationPreference';
export type { SuggestionOutcome } from './AiSuggestion';
export type { UsageKind } from './UsageRecord';
export type { RoutingStatus } from './User';

// Company.ts is owned elsewhere; its association properties are merged in here.
declare module './Company' {
  interface Company {
    users?: NonAttribute<User[]>;
    chatbots?: NonAttribute<Chatbot[]>;
  }
}

/** Initialises every model on the connection and wires the associations; the migrations own the schema. */
export function initModels(sequelize: Sequelize): void {
  for (const model of [
    Company,
    User,
    AccessToken,
    Chatbot,
    KnowledgeSource,
    KnowledgeChunk,
    Visitor,
    PageView,
    Conversation,
    Message,
    ConversationEvent,
    Tag,
    ConversationTag,
    TagSuggestion,
    CannedReply,
    Note,
    Lead,
    ProviderKey,
    Integration,
    UsageRecord,
    AiSuggestion,
    PushSubscription,
    NotificationPreference,
    ShardFence,
    Webhook,
  ]) {
    model.initModel(sequelize);
  }

  announceSettingsWrites(Chatbot);
  announceSettingsWrites(Company);
  // A workspace's provider keys are remembered beside its settings (src/ai/endpoint.ts).
  announceSettingsWrites(ProviderKey);

  Company.hasMany(User, { as: 'users', foreignKey: 'companyId' });
  User.belongsTo(Company, { as: 'company', foreignKey: 'companyId' });
  User.hasOne(NotificationPreference, { as: 'notificationPreference', foreignKey: 'userId' });
  User.hasMany(PushSubscription, { as: 'pushSubscriptions', foreignKey: 'userId' });

  AccessToken.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  AccessToken.belongsTo(Company, { as: 'company', foreignKey: 'companyId' });

  Company.hasMany(Chatbot, { as: 'chatbots', foreignKey: 'companyId' });
  Chatbot.belongsTo(Company, { as: 'company', foreignKey: 'companyId' });

  Chatbot.hasMany(KnowledgeSource, { as: 'knowledgeSources', foreignKey: 'chatbotId' });
  KnowledgeSource.belongsTo(Chatbot, { as: 'chatbot', foreignKey: 'chatbotId' });
  KnowledgeSource.hasMany(KnowledgeSource, { as: 'children', foreignKey: 'parentId' });
  KnowledgeSource.hasMany(KnowledgeChunk, { as: 'chunks', foreignKey: 'sourceId' });

  Chatbot.hasMany(Conversation, { as: 'conversations', foreignKey: 'chatbotId' });
  Conversation.belongsTo(Chatbot, { as: 'chatbot', foreignKey: 'chatbotId' });
  Conversation.belongsTo(User, { as: 'assignee', foreignKey: 'assignedUserId' });

  Conversation.hasMany(Message, { as: 'messages', foreignKey: 'conversationId' });
  Message.belongsTo(Conversation, { as: 'conversation', foreignKey: 'conversationId' });
  Message.belongsTo(User, { as: 'author', foreignKey: 'authorUserId' });

  Conversation.hasMany(ConversationEvent, { as: 'events', foreignKey: 'conversationId' });
  Conversation.hasMany(Note, { as: 'notes', foreignKey: 'conversationId' });
  Note.belongsTo(User, { as: 'author', foreignKey: 'userId' });

  Conversation.belongsToMany(Tag, { through: ConversationTag, as: 'tags', foreignKey: 'conversationId', otherKey: 'tagId' });
  Conversation.hasMany(TagSuggestion, { as: 'tagSuggestions', foreignKey: 'conversationId' });
  TagSuggestion.belongsTo(Tag, { as: 'tag', foreignKey: 'tagId' });

  // Not 'pageViews': that name is the visitor's page_views counter column.
  Visitor.hasMany(PageView, { as: 'pageViewRecords', foreignKey: 'visitorId' });
  Visitor.belongsTo(Chatbot, { as: 'chatbot', foreignKey: 'chatbotId' });

  Lead.belongsTo(Conversation, { as: 'conversation', foreignKey: 'conversationId' });
}

type WriteOptions = { transaction?: Transaction | null };

/** Raises the settings epoch once the write is committed (at once without a transaction). */
function afterCommit(options: WriteOptions): Promise<void> | undefined {
  if (!options.transaction) return settingsWritten();
  options.transaction.afterCommit(() => settingsWritten());
  return undefined;
}

/**
 * Every committed write of a chatbot or workspace row raises the settings epoch, which the nodes'
 * remembered settings are checked against (src/db/settingsEpoch.ts). Awaited after the commit, so
 * the write's caller answers only once every node can tell.
 */
function announceSettingsWrites<M extends Model>(model: ModelStatic<M>): void {
  // Named, and removed first: models may be initialised more than once in a process (tests).
  for (const hook of ['afterSave', 'afterDestroy', 'afterBulkUpdate', 'afterBulkDestroy'] as const) model.removeHook(hook, 'settingsEpoch');
  model.addHook('afterSave', 'settingsEpoch', (_row: M, options: WriteOptions) => afterCommit(options));
  model.addHook('afterDestroy', 'settingsEpoch', (_row: M, options: WriteOptions) => afterCommit(options));
  model.addHook('afterBulkUpdate', 'settingsEpoch', (options: WriteOptions) => afterCommit(options));
  model.addHook('afterBulkDestroy', 'settingsEpoch', (options: WriteOptions) => afterCommit(options));
}
