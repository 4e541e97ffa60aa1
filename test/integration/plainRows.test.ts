import { strict as assert } from 'node:assert';
import pg from 'pg';
import { DatabaseError, Sequelize } from 'sequelize';
import { plainRows } from '../../src/db/plainRows';
import { isDatabaseUnavailable } from '../../src/db/unavailable';
import { TEST_DATABASE_URL } from '../support/env';
import { failureOf } from '../support/failure';

/**
 * `plainRows`: statements on Sequelize's own pool without `sequelize.query`. Its pool here holds one
 * connection, so a connection that was not given back would make the next statement wait and fail.
 */
describe('plainRows: hot reads on the pool, without model instances', () => {
  let sequelize: Sequelize;
  beforeEach(() => {
    sequelize = new Sequelize(TEST_DATABASE_URL, { dialect: 'postgres', dialectModule: pg, logging: false, pool: { max: 1, acquire: 3_000 } });
  });
  afterEach(() => sequelize.close());

  it('returns plain rows, parsed as every other query of the process parses them', async () => {
    const rows = await plainRows<{ n: number; at: Date; text: string; doc: { a: number[] } }>(sequelize, `SELECT $1::bigint AS n, now() AS at, $2::text AS text, '{"a":[1,2]}'::json AS doc`, [5, 'x']);
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0]!.n, rows[0]!.at instanceof Date, rows[0]!.text, rows[0]!.doc], [5, true, 'x', { a: [1, 2] }]);
  });

  it('a failing statement is a DatabaseError (a bug, not an outage), and its connection goes back to the pool', async () => {
    for (let i = 0; i < 3; i++) {
      const error = await failureOf(() => plainRows(sequelize, 'SELECT 1 / $1::int AS n', [0]));
      assert.ok(error instanceof DatabaseError, String(error));
      assert.equal((error as DatabaseError).parent.message, 'division by zero');
      assert.equal(isDatabaseUnavailable(error), false);
    }
    assert.deepEqual(await plainRows(sequelize, 'SELECT 1 AS n', []), [{ n: 1 }]);
  });

  it('a session the server ends is an outage (503, try again), and the pool replaces it', async () => {
    const error = await failureOf(() => plainRows(sequelize, 'SELECT pg_terminate_backend(pg_backend_pid())', []));
    assert.equal(isDatabaseUnavailable(error), true);
    assert.deepEqual(await plainRows(sequelize, 'SELECT 2 AS n', []), [{ n: 2 }]);
  });
});
