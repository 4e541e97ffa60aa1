import type { Model, ModelStatic } from 'sequelize';
import { AccessToken, Company, User } from '../../models';
import { plainRows } from '../../db/plainRows';

export type TokenWithOwner = AccessToken & { user: User & { company: Company } };

/** `"t"."user_id" AS "t.userId", ...`: every attribute of a model, under its attribute name, prefixed by the table's alias. */
function columnsOf(model: ModelStatic<Model>, alias: string): { sql: string; aliases: string[] } {
  const attributes = Object.entries(model.getAttributes());
  return {
    sql: attributes.map(([attribute, definition]) => `${alias}."${definition.field ?? attribute}" AS "${alias}.${attribute}"`).join(', '),
    aliases: attributes.map(([attribute]) => `${alias}.${attribute}`),
  };
}

let columns: { sql: string; aliases: string[] } | undefined;
/**
 * The select list of a token with its user and workspace (`TOKEN_FROM`), and its column names in
 * order (`t.id`, ..., `co.updatedAt`); `tokenFromRow` builds the instances from such a row. Built on
 * first use, once the models are initialised.
 */
export function tokenColumns(): { sql: string; aliases: string[] } {
  if (!columns) {
    const parts = [columnsOf(AccessToken, 't'), columnsOf(User, 'u'), columnsOf(Company, 'co')];
    columns = { sql: parts.map((p) => p.sql).join(', '), aliases: parts.flatMap((p) => p.aliases) };
  }
  return columns;
}

/** The token `t`, its user `u` and the user's workspace `co`. */
export const TOKEN_FROM = `access_tokens t JOIN users u ON u.id = t.user_id JOIN companies co ON co.id = u.company_id`;

let sql: string | undefined;
const tokenSql = () => (sql ??= `SELECT ${tokenColumns().sql} FROM ${TOKEN_FROM} WHERE t.id = $1`);

/** The columns of one alias, keyed by attribute name. */
function part(row: Record<string, unknown>, alias: string): Record<string, unknown> {
  const prefix = `${alias}.`;
  const values: Record<string, unknown> = {};
  for (const key in row) if (key.startsWith(prefix)) values[key.slice(prefix.length)] = row[key];
  return values;
}

/** Attaches an included instance as Sequelize's own finders do (`include: [{ as }]`). */
function attach(owner: Model, as: string, included: Model): void {
  (owner as unknown as Record<string, unknown>)[as] = included;
  (owner.dataValues as Record<string, unknown>)[as] = included;
}

/** The instances of a row of `tokenColumns()` (typed values, keyed by column name; other keys are ignored). */
export function tokenFromRow(row: Record<string, unknown>): TokenWithOwner {
  const built = { isNewRecord: false, raw: true };
  const token = AccessToken.build(part(row, 't') as never, built);
  const user = User.build(part(row, 'u') as never, built);
  attach(user, 'company', Company.build(part(row, 'co') as never, built));
  attach(token, 'user', user);
  return token as TokenWithOwner;
}

/**
 * A token by id with its user and the user's workspace, as `findByPk(id, { include: user -> company })`
 * gives them (the same instances, `token.update` included), from one plain statement: every
 * authenticated request reads it, and Sequelize's include machinery cost more CPU than the rest of
 * an inbox response. Prepared once per connection: Postgres parsing and planning it cost more than
 * running it. Undefined when there is no such token (or its user or workspace is gone).
 */
export async function tokenWithOwner(id: number): Promise<TokenWithOwner | undefined> {
  const [row] = await plainRows<Record<string, unknown>>(AccessToken.sequelize!, tokenSql(), [id], { prepared: true });
  return row && tokenFromRow(row);
}
