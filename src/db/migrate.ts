import type { Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import type { Logger } from 'pino';
import { migrations } from '../models/migrations';

// Any constant works; it only has to be the same in every process that migrates.
const MIGRATION_LOCK = 7_415_263;

/** Applies pending migrations under an advisory lock, so two processes starting together cannot race. */
export async function migrate(sequelize: Sequelize, logger: Logger): Promise<string[]> {
  const umzug = new Umzug({
    migrations,
    context: sequelize,
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: {
      info: (event) => logger.info(event, 'migration'),
      warn: (event) => logger.warn(event, 'migration'),
      error: (event) => logger.error(event, 'migration'),
      debug: (event) => logger.debug(event, 'migration'),
    },
  });
  // A transaction-scoped lock pins one pooled connection for the whole run; umzug works on the others.
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SELECT pg_advisory_xact_lock(:lock)', { replacements: { lock: MIGRATION_LOCK }, transaction });
    const applied = await umzug.up();
    return applied.map((m) => m.name);
  });
}
