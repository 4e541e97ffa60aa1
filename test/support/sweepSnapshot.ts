import { QueryTypes } from 'sequelize';
import { server } from './hooks';

/** Columns a request may touch without writing anything a client sent: a token's last use. */
const VOLATILE = ['last_used_at'];

let tables: Promise<Array<{ name: string; scope: string }>> | undefined;

/** Every table with a workspace column (and the two keyed otherwise), found once from the catalogue. */
function tenantTables() {
  tables ??= server()
    .ctx.db.sequelize.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'company_id' ORDER BY table_name`,
      { type: QueryTypes.SELECT },
    )
    .then((rows) => [
      ...rows.map(({ table_name: name }) => ({ name, scope: 'company_id = $1' })),
      { name: 'companies', scope: 'id = $1' },
      { name: 'knowledge_terms', scope: 'chatbot_id IN (SELECT id FROM chatbots WHERE company_id = $1)' },
    ]);
  return tables;
}

/**
 * A fingerprint of everything stored for one workspace: per table, its row count and a hash of its
 * rows. Two equal snapshots mean nothing was inserted, updated or deleted in between.
 */
export async function tenantSnapshot(companyId: number): Promise<Record<string, string>> {
  const sequelize = server().ctx.db.sequelize;
  const drop = VOLATILE.map((column) => ` - '${column}'`).join('');
  const entries = await Promise.all(
    (await tenantTables()).map(async ({ name, scope }) => {
      const [row] = await sequelize.query<{ rows: string; hash: string }>(
        `SELECT count(*) AS rows, md5(coalesce(string_agg((to_jsonb(t)${drop})::text, '|' ORDER BY (to_jsonb(t)${drop})::text), '')) AS hash FROM ${name} t WHERE ${scope}`,
        { bind: [companyId], type: QueryTypes.SELECT },
      );
      return [name, `${row!.rows} rows ${row!.hash}`] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** The tables whose rows differ between two snapshots. */
export const changedTables = (before: Record<string, string>, after: Record<string, string>) =>
  Object.keys(after).filter((table) => before[table] !== after[table]).map((table) => `${table} (${before[table]} -> ${after[table]})`);
