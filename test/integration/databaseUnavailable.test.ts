import { strict as assert } from 'node:assert';
import pg from 'pg';
import { Sequelize } from 'sequelize';
import { isDatabaseUnavailable } from '../../src/db/unavailable';
import { AppError } from '../../src/errors';
import { Tag } from '../../src/models';
import { TEST_DATABASE_URL } from '../support/env';
import { failureOf } from '../support/failure';
import { server } from '../support/hooks';
import { TcpProxy } from '../support/tcpProxy';
import * as make from '../support/factories';

/** A Sequelize of its own (not the test server's pool) against `url`. */
const sequelizeAt = (url: string) => new Sequelize(url, { dialect: 'postgres', dialectModule: pg, logging: false, pool: { max: 1, acquire: 3_000 } });

/**
 * Which errors mean "PostgreSQL cannot be reached" (503 `database_unavailable`, try again) and which
 * are a query failing on its own merits (still a bug, 500): each produced by a real PostgreSQL.
 */
describe('database errors: unavailable or not', () => {
  it('a session the server terminates (SQLSTATE 57P01, as at a shutdown) is unavailable', async () => {
    const error = await failureOf(() => server().ctx.db.sequelize.query('SELECT pg_terminate_backend(pg_backend_pid())'));
    assert.equal((error as { parent?: { code?: string } }).parent?.code, '57P01');
    assert.equal(isDatabaseUnavailable(error), true);
  });

  it('a refused connection is unavailable', async () => {
    const sequelize = sequelizeAt('postgres://postgres@127.0.0.1:1/nothing');
    try {
      const error = await failureOf(() => sequelize.authenticate());
      assert.equal((error as Error).name, 'SequelizeConnectionRefusedError');
      assert.equal(isDatabaseUnavailable(error), true);
    } finally {
      await sequelize.close();
    }
  });

  it('a connection lost mid-query, and a new one cut while connecting, are unavailable', async () => {
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const sequelize = sequelizeAt(viaProxy.toString());
    try {
      await sequelize.authenticate();
      const running = failureOf(() => sequelize.query('SELECT pg_sleep(10)'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      proxy.cut();
      const lost = await running;
      assert.match((lost as Error).message, /Connection terminated/);
      assert.equal(isDatabaseUnavailable(lost), true);
      const refused = await failureOf(() => sequelize.query('SELECT 1'));
      assert.equal(isDatabaseUnavailable(refused), true, String(refused));
    } finally {
      await sequelize.close().catch(() => undefined);
      await proxy.close();
    }
  });

  it('a query that fails on its own merits, and errors from elsewhere, are not', async () => {
    const syntax = await failureOf(() => server().ctx.db.sequelize.query('SELEC 1'));
    assert.equal((syntax as { parent?: { code?: string } }).parent?.code, '42601');
    const { company } = await make.workspace();
    await Tag.create({ companyId: company.id, name: 'Twice', color: '#123456' });
    const duplicate = await failureOf(() => Tag.create({ companyId: company.id, name: 'Twice', color: '#123456' }));
    const fetchRefused = await failureOf(() => fetch('http://127.0.0.1:1/'));
    const socketRefused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    for (const error of [syntax, duplicate, fetchRefused, socketRefused, new AppError(503, 'actor_unavailable', 'Moving.'), new Error('Connection terminated'), 'text']) {
      assert.equal(isDatabaseUnavailable(error), false, String(error));
    }
  });
});
