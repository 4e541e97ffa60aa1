import type pg from 'pg';
import { DatabaseError, type Sequelize } from 'sequelize';
import { isDatabaseUnavailable } from './unavailable';

/**
 * The rows of one statement as `pg` returns them, on a connection of Sequelize's own pool (no second
 * pool, the same type parsers). For hot read paths that want plain rows: no model instances and none
 * of `sequelize.query`'s per-call work (rewriting the SQL for its bind syntax, building the logged
 * statement). Failures reach the error handler as Sequelize's `DatabaseError`, as from any other
 * query, so an outage is still told apart from a failed statement (src/db/unavailable.ts).
 */
export async function plainRows<T>(sequelize: Sequelize, text: string, values: readonly unknown[]): Promise<T[]> {
  const manager = sequelize.connectionManager;
  const connection = (await manager.getConnection({ type: 'read' })) as pg.Client & { _invalid?: boolean };
  try {
    return (await connection.query<T & pg.QueryResultRow>(text, values as unknown[])).rows;
  } catch (error) {
    const failure = new DatabaseError(error as ConstructorParameters<typeof DatabaseError>[0]);
    // A connection the server ended (or whose socket broke) is not handed to the next caller: the pool opens another.
    if (isDatabaseUnavailable(failure)) connection._invalid = true;
    throw failure;
  } finally {
    manager.releaseConnection(connection);
  }
}
