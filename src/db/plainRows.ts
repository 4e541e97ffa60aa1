import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DatabaseError, type Sequelize } from 'sequelize';
import { isDatabaseUnavailable } from './unavailable';

/**
 * The rows of one statement as `pg` returns them, on a connection of Sequelize's own pool (no second
 * pool, the same type parsers). For hot read paths that want plain rows: no model instances and none
 * of `sequelize.query`'s per-call work (rewriting the SQL for its bind syntax, building the logged
 * statement). Failures reach the error handler as Sequelize's `DatabaseError`, as from any other
 * query, so an outage is still told apart from a failed statement (src/db/unavailable.ts).
 *
 * `prepared`: the statement is prepared once per connection (named after its text) and then only
 * executed, so Postgres parses and plans it once instead of on every call. For statements whose text
 * comes in a few shapes and whose best plan does not depend on the values (Postgres may settle on one
 * plan for all values after five executions).
 *
 * `asTextArrays`: each row an array of the columns' text as Postgres sent it (null for NULL), no type
 * parser run: for a caller that reads a few columns of many rows by position.
 */
export async function plainRows<T>(sequelize: Sequelize, text: string, values: readonly unknown[], options: { prepared?: boolean; asTextArrays?: boolean } = {}): Promise<T[]> {
  const manager = sequelize.connectionManager;
  const connection = (await manager.getConnection({ type: 'read' })) as pg.Client & { _invalid?: boolean };
  try {
    const query: pg.QueryConfig = options.prepared ? { name: statementName(text), text, values: values as unknown[] } : { text, values: values as unknown[] };
    if (options.asTextArrays) return (await connection.query<T & unknown[]>({ ...query, rowMode: 'array', types: AS_TEXT })).rows as T[];
    return (await connection.query<T & pg.QueryResultRow>(query)).rows;
  } catch (error) {
    const failure = new DatabaseError(error as ConstructorParameters<typeof DatabaseError>[0]);
    // A connection the server ended (or whose socket broke) is not handed to the next caller: the pool opens another.
    if (isDatabaseUnavailable(failure)) connection._invalid = true;
    throw failure;
  } finally {
    manager.releaseConnection(connection);
  }
}

/** Every column's text as sent. */
const AS_TEXT: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/** At most this many statement texts are remembered; their number is small (a few per route), this only bounds a mistake. */
const NAMED_TEXTS = 500;
const names = new Map<string, string>();

/** A name per text (`pg` refuses one name for two texts): its hash, remembered. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `plain_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (names.size >= NAMED_TEXTS) names.clear();
    names.set(text, name);
  }
  return name;
}
