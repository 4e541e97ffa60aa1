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
  if (options.asTextArrays) return (await plainTextArrays(sequelize, text, values, options)).rows as T[];
  return onConnection(sequelize, (connection) => connection.query<T & pg.QueryResultRow>(queryConfig(text, values, options)).then((result) => result.rows));
}

/** Rows as `asTextArrays` gives them, with a way to read a column as the connection's type parser would. */
export interface TextArrays {
  rows: Array<Array<string | null>>;
  /** The value of a column's text as `pg` would have given it (the pool's type parsers: Dates, numbers, JSON, ...). */
  parsed(column: number, text: string | null): unknown;
}

/**
 * `plainRows(..., { asTextArrays: true })`, plus the parsers of the columns: for a statement whose
 * rows are mostly text read by position, with a few columns the caller wants as typed values.
 */
export async function plainTextArrays(sequelize: Sequelize, text: string, values: readonly unknown[], options: { prepared?: boolean } = {}): Promise<TextArrays> {
  const result = await onConnection(sequelize, (connection) =>
    connection.query<unknown[]>({ ...queryConfig(text, values, options), rowMode: 'array', types: AS_TEXT }),
  );
  const manager = sequelize.connectionManager as unknown as { getTypeParser(oid: number): (text: string) => unknown };
  return {
    rows: result.rows as Array<Array<string | null>>,
    parsed: (column, value) => (value === null ? null : manager.getTypeParser(result.fields[column]!.dataTypeID)(value)),
  };
}

function queryConfig(text: string, values: readonly unknown[], options: { prepared?: boolean }): pg.QueryConfig {
  return options.prepared ? { name: statementName(text), text, values: values as unknown[] } : { text, values: values as unknown[] };
}

/** Runs one query on a connection of the pool, with the pool's error handling (see `plainRows`). */
async function onConnection<R>(sequelize: Sequelize, run: (connection: pg.Client) => Promise<R>): Promise<R> {
  const manager = sequelize.connectionManager;
  const connection = (await manager.getConnection({ type: 'read' })) as pg.Client & { _invalid?: boolean };
  try {
    return await run(connection);
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
