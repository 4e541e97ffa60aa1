import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import { inboxTotals, listInbox, type InboxListing } from '../../src/domain/inbox/listInbox';

export interface ExplainedQuery {
  name: string;
  executionMs: number;
  planningMs: number;
  /** Shared buffers hit + read by the whole plan: how much of the table the query touched. */
  buffers: number;
  plan: string;
}

/**
 * The SQL the inbox actually sends, captured from Sequelize's query log while the domain functions
 * run (so a later change to src/domain/inbox is measured as it is, not as this file remembers it).
 */
async function captured(db: Sequelize, run: () => Promise<unknown>): Promise<{ text: string; bind: unknown[] }> {
  // Sequelize does not type its options (logging) as public, so the instance's query is wrapped instead.
  const instance = db as unknown as { query: (sql: unknown, options?: { bind?: unknown[] }) => Promise<unknown> };
  const original = instance.query;
  let text: string | undefined;
  let bind: unknown[] = [];
  instance.query = function (this: unknown, sql: unknown, options?: { bind?: unknown[] }) {
    // The last query is the one measured: a search first asks how common its text is, then lists.
    if (typeof sql === 'string') [text, bind] = [sql, options?.bind ?? []];
    return original.call(this, sql, options);
  };
  try {
    await run();
  } finally {
    delete (instance as { query?: unknown }).query;
  }
  if (!text) throw new Error('no SQL was captured');
  return { text, bind };
}

async function explain(db: Sequelize, name: string, { text, bind }: { text: string; bind: unknown[] }): Promise<ExplainedQuery> {
  // Warm once (as the HTTP runs have done), then explain the second run.
  await db.query(text, { bind, type: QueryTypes.SELECT });
  const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, { bind, type: QueryTypes.SELECT });
  const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
  const ms = (label: string) => Number(new RegExp(`${label} Time: ([\\d.]+) ms`).exec(plan)?.[1] ?? Number.NaN);
  const top = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(plan);
  return { name, executionMs: ms('Execution'), planningMs: ms('Planning'), buffers: Number(top?.[1] ?? 0) + Number(top?.[2] ?? 0), plan };
}

/** EXPLAIN (ANALYZE, BUFFERS) of each named list (a filter, a search, a later page) and of the counts, written to `file`. */
export async function explainInbox(db: Sequelize, companyId: number, userId: number, lists: Record<string, InboxListing>, file: string): Promise<ExplainedQuery[]> {
  const explained: ExplainedQuery[] = [];
  for (const [name, listing] of Object.entries(lists)) {
    explained.push(await explain(db, `list ${name}`, await captured(db, () => listInbox(companyId, userId, listing))));
  }
  explained.push(await explain(db, 'counts', await captured(db, () => inboxTotals(companyId, userId))));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, explained.map((q) => `== ${q.name}\n${q.plan}\n`).join('\n'));
  return explained;
}
