import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** Per-event overrides keyed by event name. */
export type NotificationEvents = Record<string, { push: boolean; sound: string | null }>;

/** One user's notification settings (a single row per user): channels, sounds, quiet hours and chatbot filter. */
export class NotificationPreference extends Model<InferAttributes<NotificationPreference>, InferCreationAttributes<NotificationPreference>> {
  declare userId: number;
  declare companyId: number;
  declare pushEnabled: CreationOptional<boolean>;
  declare soundEnabled: CreationOptional<boolean>;
  declare vibrateEnabled: CreationOptional<boolean>;
  declare emailEnabled: CreationOptional<boolean>;
  declare events: CreationOptional<NotificationEvents>;
  declare soundPack: CreationOptional<string>;
  declare volume: CreationOptional<number>;
  declare quietHoursStart: CreationOptional<string | null>;
  declare quietHoursEnd: CreationOptional<string | null>;
  declare quietHoursTz: CreationOptional<string | null>;
  declare dndUntil: CreationOptional<Date | null>;
  declare chatbotFilter: CreationOptional<number[]>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof NotificationPreference {
    return NotificationPreference.init(
      {
        userId: { type: DataTypes.INTEGER, primaryKey: true },
        companyId: { type: DataTypes.INTEGER, allowNull: false },
        pushEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        soundEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        vibrateEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        emailEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        events: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        soundPack: { type: DataTypes.STRING(24), allowNull: false, defaultValue: 'default' },
        volume: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 80 },
        quietHoursStart: { type: DataTypes.CHAR(5), allowNull: true },
        quietHoursEnd: { type: DataTypes.CHAR(5), allowNull: true },
        quietHoursTz: { type: DataTypes.STRING(64), allowNull: true },
        dndUntil: { type: DataTypes.DATE, allowNull: true },
        chatbotFilter: { type: DataTypes.ARRAY(DataTypes.INTEGER), allowNull: false, defaultValue: [] },
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'notification_preferences', underscored: true, createdAt: false },
    );
  }
}
