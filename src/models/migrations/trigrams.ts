import type { Migration } from './types';

type Db = Parameters<Migration['up']>[0]['context'];

/**
 * Creates `pg_trgm` when it is missing and says whether it is there. It ships with PostgreSQL
 * (contrib, the embedded server included) and is a trusted extension, so the database's owner may
 * create it without superuser rights. Where even that is refused, the caller leaves its trigram
 * indexes out with a notice (`without` says what still works) rather than failing the release.
 */
export async function trigramsAvailable(db: Db, warning: { code: string; without: string }): Promise<boolean> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    return true;
  } catch (error) {
    // Migrations get no logger; Node's own warning channel reaches stderr all the same.
    process.emitWarning(`pg_trgm could not be created (${(error as Error).message}): ${warning.without}`, { code: warning.code });
    return false;
  }
}
