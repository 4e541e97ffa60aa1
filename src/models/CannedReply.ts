import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A saved reply agents insert by shortcut; with a userId it is that agent's own, without one it is shared. */
export class CannedReply extends Model<InferAttributes<CannedReply>, InferCreationAttributes<CannedReply>> {
  declare id: CreationOptional<number>;
  declare companyId: number;
  declare userId: CreationOptional<number | null>;
  declare title: string;
  declare shortcut: string;
  declare body: string;
  declare useCount: CreationOptional<number>;
  declare lastUsedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof CannedReply {
    return CannedReply.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        userId: { type: DataTypes.INTEGER, allowNull: true },
        title: { type: DataTypes.STRING(120), allowNull: false },
        shortcut: { type: DataTypes.STRING(40), allowNull: false },
        body: { type: DataTypes.TEXT, allowNull: false },
        useCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastUsedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'canned_replies', underscored: true },
    );
  }
}
