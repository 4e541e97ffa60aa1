import { DataTypes, Model, fn, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { Chatbot } from './Chatbot';
import type { PageView } from './PageView';

/** A widget visitor, keyed per workspace by the browser's visitor key; `pageViews` is the running count. */
export class Visitor extends Model<InferAttributes<Visitor>, InferCreationAttributes<Visitor>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare chatbotId: CreationOptional<number | null>;
  declare visitorKey: string;
  declare name: CreationOptional<string | null>;
  declare email: CreationOptional<string | null>;
  declare phone: CreationOptional<string | null>;
  declare page: CreationOptional<string | null>;
  declare title: CreationOptional<string | null>;
  declare referrer: CreationOptional<string | null>;
  declare entryPage: CreationOptional<string | null>;
  declare country: CreationOptional<string | null>;
  declare device: CreationOptional<string | null>;
  declare browser: CreationOptional<string | null>;
  declare os: CreationOptional<string | null>;
  declare locale: CreationOptional<string | null>;
  declare timezone: CreationOptional<string | null>;
  declare userAgent: CreationOptional<string | null>;
  declare pageViews: CreationOptional<number>;
  declare firstSeenAt: CreationOptional<Date>;
  declare lastSeenAt: CreationOptional<Date>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  declare chatbot?: NonAttribute<Chatbot | null>;
  // The `pageViews` column is the counter, so the association needs another name.
  declare pageViewRecords?: NonAttribute<PageView[]>;

  static initModel(sequelize: Sequelize): typeof Visitor {
    return Visitor.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        chatbotId: { type: DataTypes.INTEGER, allowNull: true },
        visitorKey: { type: DataTypes.STRING(100), allowNull: false },
        name: { type: DataTypes.STRING(255), allowNull: true },
        email: { type: DataTypes.STRING(255), allowNull: true },
        phone: { type: DataTypes.STRING(64), allowNull: true },
        page: { type: DataTypes.STRING(2048), allowNull: true },
        title: { type: DataTypes.STRING(500), allowNull: true },
        referrer: { type: DataTypes.STRING(2048), allowNull: true },
        entryPage: { type: DataTypes.STRING(2048), allowNull: true },
        country: { type: DataTypes.CHAR(2), allowNull: true },
        device: { type: DataTypes.STRING(40), allowNull: true },
        browser: { type: DataTypes.STRING(60), allowNull: true },
        os: { type: DataTypes.STRING(60), allowNull: true },
        locale: { type: DataTypes.STRING(35), allowNull: true },
        timezone: { type: DataTypes.STRING(64), allowNull: true },
        userAgent: { type: DataTypes.STRING(1000), allowNull: true },
        pageViews: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        // fn() defaults leave the value to PostgreSQL; with no default, allowNull: false would reject the create before the INSERT.
        firstSeenAt: { type: DataTypes.DATE, allowNull: false, defaultValue: fn('now') },
        lastSeenAt: { type: DataTypes.DATE, allowNull: false, defaultValue: fn('now') },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'visitors', underscored: true },
    );
  }
}
