import { DataTypes, fn, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';
import type { TokenAbility } from '../../config/roles';
import type { Company } from './Company';
import type { User } from './User';

/** A bearer token for one surface (api, portal or agent); only its hash is stored. */
export class AccessToken extends Model<InferAttributes<AccessToken>, InferCreationAttributes<AccessToken>> {
  declare id: CreationOptional<number>;
  declare userId: number;
  declare companyId: number;
  declare name: string;
  declare ability: TokenAbility;
  declare tokenHash: string;
  declare deviceName: CreationOptional<string | null>;
  declare lastUsedAt: CreationOptional<Date | null>;
  declare expiresAt: Date;
  declare revokedAt: CreationOptional<Date | null>;
  /** Shared by a sign-in's token and every refresh of it; a new family otherwise. */
  declare family: CreationOptional<string>;
  declare createdAt: CreationOptional<Date>;

  declare user?: NonAttribute<User>;
  declare company?: NonAttribute<Company>;

  static initModel(sequelize: Sequelize): typeof AccessToken {
    return AccessToken.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        userId: { type: DataTypes.INTEGER, allowNull: false },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        name: { type: DataTypes.STRING(120), allowNull: false },
        ability: { type: DataTypes.STRING(20), allowNull: false },
        tokenHash: { type: DataTypes.CHAR(64), allowNull: false },
        deviceName: { type: DataTypes.STRING(120), allowNull: true },
        lastUsedAt: { type: DataTypes.DATE, allowNull: true },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        revokedAt: { type: DataTypes.DATE, allowNull: true },
        family: { type: DataTypes.UUID, allowNull: false, defaultValue: fn('gen_random_uuid') },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'access_tokens', underscored: true, updatedAt: false },
    );
  }
}
