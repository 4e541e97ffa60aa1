import { Op } from 'sequelize';
import { Chatbot, NotificationPreference, type User } from '../../models';
import { mergeChange, resolvePreferences, type Preferences, type PreferencesChange } from './preferences';

const MAX_ID = 2 ** 31 - 1;

type Owner = Pick<User, 'id' | 'companyId' | 'timezone'>;

/** One agent's preferences, defaults filled in for a user who never saved any. */
export async function loadPreferences(user: Owner): Promise<Preferences> {
  const row = await NotificationPreference.findOne({ where: { userId: user.id, companyId: user.companyId } });
  return resolvePreferences(row, user.timezone);
}

/** Several agents' preferences of one workspace in one query, keyed by user id (defaults for those who saved none). */
export async function loadPreferencesOf(companyId: number, users: ReadonlyArray<Pick<User, 'id' | 'timezone'>>): Promise<Map<number, Preferences>> {
  if (users.length === 0) return new Map();
  const rows = await NotificationPreference.findAll({ where: { companyId, userId: { [Op.in]: users.map((user) => user.id) } } });
  const byUser = new Map(rows.map((row) => [row.userId, row]));
  return new Map(users.map((user) => [user.id, resolvePreferences(byUser.get(user.id) ?? null, user.timezone)]));
}

/**
 * Applies a partial update. The row is created with the table's defaults if missing, then locked, so
 * two updates from two devices merge their `events` instead of one overwriting the other.
 */
export async function savePreferences(user: Owner, change: PreferencesChange, now = new Date()): Promise<Preferences> {
  const sequelize = NotificationPreference.sequelize!;
  const row = await sequelize.transaction(async (transaction) => {
    await NotificationPreference.bulkCreate([{ userId: user.id, companyId: user.companyId }], { ignoreDuplicates: true, transaction });
    const current = await NotificationPreference.findOne({ where: { userId: user.id, companyId: user.companyId }, lock: true, transaction, rejectOnEmpty: true });
    const update = mergeChange(current, change, now);
    return Object.keys(update).length > 0 ? current.update(update, { transaction }) : current;
  });
  return resolvePreferences(row, user.timezone);
}

/** The ids among `ids` that name chatbots of this workspace, in the order given, without repeats. */
export async function workspaceChatbotIds(companyId: number, ids: number[]): Promise<number[]> {
  // An id past the integer column's range cannot name a chatbot, and would make Postgres refuse the query.
  const unique = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= MAX_ID);
  if (unique.length === 0) return [];
  const found = await Chatbot.findAll({ attributes: ['id'], where: { companyId, id: { [Op.in]: unique } } });
  const known = new Set(found.map((bot) => bot.id));
  return unique.filter((id) => known.has(id));
}
