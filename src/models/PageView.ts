import { DataTypes, Model, fn, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** One page a visitor loaded, appended as the widget reports navigation. */
export class PageView extends Model<InferAttributes<PageView>, InferCreationAttributes<PageView>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare visitorId: number;
  declare url: string;
  declare title: CreationOptional<string | null>;
  declare referrer: CreationOptional<string | null>;
  declare viewedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PageView {
    return PageView.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        visitorId: { type: DataTypes.BIGINT, allowNull: false },
        url: { type: DataTypes.STRING(2048), allowNull: false },
        title: { type: DataTypes.STRING(500), allowNull: true },
        referrer: { type: DataTypes.STRING(2048), allowNull: true },
        // fn() defaults leave the value to PostgreSQL; with no default, allowNull: false would reject the create before the INSERT.
        viewedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: fn('now') },
      },
      { sequelize, tableName: 'page_views', underscored: true, timestamps: false },
    );
  }
}
