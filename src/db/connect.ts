import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { Logger } from 'pino';
import type { Config } from '../../config/env';
import { initModels } from '../models';
import { startEmbeddedDatabase } from './embedded';

// int8 (bigserial ids, COUNT(*)) as JS numbers: ids stay far below 2^53, and the API shows them as integers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export interface Database {
  sequelize: Sequelize;
  /** The connection URL, for the few connections that live outside the pool (the node lock). */
  url: string;
  close(): Promise<void>;
}

// A visitor key compared with a literal: `"visitor_key" = 'abc'`, `visitor_key = 'a''b'`.
const VISITOR_KEY_LITERAL = /(\bvisitor_key"?\s*(?:=|<>|!=)\s*)'(?:[^']|'')*'/gi;

/**
 * The statement as the trace log records it. Sequelize inlines WHERE values into the logged SQL, and
 * the widget's visitor key is the only key to a transcript: a credential, so it never reaches a log.
 */
export const loggedSql = (sql: string) => sql.replace(VISITOR_KEY_LITERAL, "$1'[redacted]'");

/** Connects to DATABASE_URL, or to embedded PostgreSQL under DATA_DIR when none is set, and initialises the models. */
export async function connectDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, logger: Logger): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedDatabase(config.dataDir, logger);
  const url = config.databaseUrl ?? embedded!.url;
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    dialectModule: pg,
    logging: (sql) => logger.trace({ sql: loggedSql(sql) }),
    pool: { max: 10, min: 0, idle: 10_000, acquire: 15_000 },
    define: { underscored: true },
  });
  initModels(sequelize);
  await sequelize.authenticate();
  return {
    sequelize,
    url,
    async close() {
      await sequelize.close();
      await embedded?.stop();
    },
  };
}
