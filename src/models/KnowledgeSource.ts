import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { Chatbot } from './Chatbot';
import type { KnowledgeChunk } from './KnowledgeChunk';

export type KnowledgeSourceType = 'text' | 'qa' | 'url' | 'page';
export type KnowledgeSourceStatus = 'pending' | 'processing' | 'ready' | 'failed';

/** Content a chatbot answers from; a crawled `url` source owns its `page` children through parentId. */
export class KnowledgeSource extends Model<InferAttributes<KnowledgeSource>, InferCreationAttributes<KnowledgeSource>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare chatbotId: number;
  declare parentId: CreationOptional<number | null>;
  declare type: KnowledgeSourceType;
  declare title: string;
  declare sourceUrl: CreationOptional<string | null>;
  declare content: CreationOptional<string | null>;
  declare question: CreationOptional<string | null>;
  declare answer: CreationOptional<string | null>;
  declare filePath: CreationOptional<string | null>;
  declare status: CreationOptional<KnowledgeSourceStatus>;
  declare failureReason: CreationOptional<string | null>;
  declare chunkCount: CreationOptional<number>;
  declare indexedAt: CreationOptional<Date | null>;
  /** The PostgreSQL text search configuration its passages are parsed with (src/domain/knowledge/searchLanguage.ts). */
  declare searchConfig: CreationOptional<string>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  declare chatbot?: NonAttribute<Chatbot>;
  declare children?: NonAttribute<KnowledgeSource[]>;
  declare chunks?: NonAttribute<KnowledgeChunk[]>;

  static initModel(sequelize: Sequelize): typeof KnowledgeSource {
    return KnowledgeSource.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        chatbotId: { type: DataTypes.INTEGER, allowNull: false },
        parentId: { type: DataTypes.INTEGER, allowNull: true },
        type: { type: DataTypes.STRING(10), allowNull: false },
        title: { type: DataTypes.STRING(255), allowNull: false },
        sourceUrl: { type: DataTypes.STRING(2048), allowNull: true },
        content: { type: DataTypes.TEXT, allowNull: true },
        question: { type: DataTypes.TEXT, allowNull: true },
        answer: { type: DataTypes.TEXT, allowNull: true },
        filePath: { type: DataTypes.TEXT, allowNull: true },
        status: { type: DataTypes.STRING(12), allowNull: false, defaultValue: 'pending' },
        failureReason: { type: DataTypes.TEXT, allowNull: true },
        chunkCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        indexedAt: { type: DataTypes.DATE, allowNull: true },
        searchConfig: { type: DataTypes.STRING(32), allowNull: false, defaultValue: 'english' },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'knowledge_sources', underscored: true },
    );
  }
}
