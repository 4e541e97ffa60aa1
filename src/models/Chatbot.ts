import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { ProviderSlug } from '../../config/providers';
import type { Company } from './Company';
import type { Conversation } from './Conversation';
import type { KnowledgeSource } from './KnowledgeSource';

/** An AI assistant embedded on a site via its public key; it answers from its own knowledge sources. */
export class Chatbot extends Model<InferAttributes<Chatbot>, InferCreationAttributes<Chatbot>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare publicKey: string;
  declare name: string;
  declare role: CreationOptional<string>;
  declare provider: ProviderSlug;
  declare model: string;
  declare isActive: CreationOptional<boolean>;
  declare persona: CreationOptional<string>;
  declare instructions: CreationOptional<string>;
  declare welcomeMessage: string;
  declare branding: CreationOptional<Record<string, unknown>>;
  declare prechat: CreationOptional<Record<string, unknown>>;
  declare identitySecretEncrypted: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  declare company?: NonAttribute<Company>;
  declare knowledgeSources?: NonAttribute<KnowledgeSource[]>;
  declare conversations?: NonAttribute<Conversation[]>;

  static initModel(sequelize: Sequelize): typeof Chatbot {
    return Chatbot.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        publicKey: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        name: { type: DataTypes.STRING(120), allowNull: false },
        role: { type: DataTypes.STRING(120), allowNull: false, defaultValue: 'Support assistant' },
        provider: { type: DataTypes.STRING(20), allowNull: false },
        model: { type: DataTypes.STRING(120), allowNull: false },
        isActive: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        persona: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        instructions: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        welcomeMessage: { type: DataTypes.STRING(300), allowNull: false },
        branding: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        prechat: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        identitySecretEncrypted: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'chatbots', underscored: true },
    );
  }
}
