import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** One retrievable passage of a knowledge source; the generated `search` tsvector column is queried in raw SQL only. */
export class KnowledgeChunk extends Model<InferAttributes<KnowledgeChunk>, InferCreationAttributes<KnowledgeChunk>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare chatbotId: number;
  declare sourceId: number;
  declare position: number;
  declare title: CreationOptional<string>;
  declare url: CreationOptional<string | null>;
  declare content: string;
  /** The PostgreSQL text search configuration `search` was parsed with (its source's). */
  declare searchConfig: CreationOptional<string>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof KnowledgeChunk {
    return KnowledgeChunk.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        chatbotId: { type: DataTypes.INTEGER, allowNull: false },
        sourceId: { type: DataTypes.INTEGER, allowNull: false },
        position: { type: DataTypes.INTEGER, allowNull: false },
        title: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
        url: { type: DataTypes.STRING(2048), allowNull: true },
        content: { type: DataTypes.TEXT, allowNull: false },
        searchConfig: { type: DataTypes.STRING(32), allowNull: false, defaultValue: 'english' },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'knowledge_chunks', underscored: true, updatedAt: false },
    );
  }
}
