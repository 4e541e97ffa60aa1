import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { PlanName } from '../../config/plans';

/** White-label brand shown by portals; unset fields fall back to Parley's defaults. */
export interface BrandSettings {
  name?: string;
  powered_by?: string;
  logo_url?: string;
}

/** A workspace (tenant). Every other tenant record hangs off one. */
export class Company extends Model<InferAttributes<Company>, InferCreationAttributes<Company>> {
  declare id: CreationOptional<number>;
  declare name: string;
  declare slug: string;
  declare plan: CreationOptional<PlanName>;
  declare portalEnabled: CreationOptional<boolean>;
  declare suspendedAt: CreationOptional<Date | null>;
  declare brand: CreationOptional<BrandSettings>;
  declare firstResponseTargetSeconds: CreationOptional<number>;
  declare settings: CreationOptional<Record<string, unknown>>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Company {
    return Company.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        name: { type: DataTypes.STRING(120), allowNull: false },
        slug: { type: DataTypes.STRING(140), allowNull: false, unique: true },
        plan: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'free' },
        portalEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        suspendedAt: { type: DataTypes.DATE, allowNull: true },
        brand: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        firstResponseTargetSeconds: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 300 },
        settings: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'companies', underscored: true },
    );
  }
}
