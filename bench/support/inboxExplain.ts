import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import { TOTALS_SQL, type InboxListing, type Statement } from '../../src/domain/inbox/listInbox';
import { inboxStatement } from '../../src/domain/inbox/readInbox';

export interface ExplainedQuery {
  name: string;
  executionMs: number;
  planningMs: number;
  /** Shared buffers hit + read by the whole plan: how much of the table the query touched. */
  buffers: number;
  plan: string;
}

/** The statements come from src/domain/inbox itself, so a later change there is measured as it is, not as this file remembers it. */
async function explain(db: Sequelize, name: string, { text, values: bind }: Statement): Promise<ExplainedQuery> {
  // Warm once (as the HTTP runs have done), then explain the second run.
  await db.query(text, { bind, type: QueryTypes.SELECT });
  const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, { bind, type: QueryTypes.SELECT });
  const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
  const ms = (label: string) => Number(new RegExp(`${label} Time: ([\\d.]+) ms`).exec(plan)?.[1] ?? Number.NaN);
  const top = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(plan);
  return { name, executionMs: ms('Execution'), planningMs: ms('Planning'), buffers: Number(top?.[1] ?? 0) + Number(top?.[2] ?? 0), plan };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statement of each named list (a filter, a search, a later page:
 * the page and the counts), of the counts alone and of the default list with a thread open, written to `file`.
 */
export async function explainInbox(
  db: Sequelize,
  target: { companyId: number; userId: number; thread: string },
  lists: Record<string, InboxListing>,
  file: string,
): Promise<ExplainedQuery[]> {
  const { companyId, userId } = target;
  const explained: ExplainedQuery[] = [];
  for (const [name, listing] of Object.entries(lists)) explained.push(await explain(db, `list ${name}`, await inboxStatement(companyId, userId, listing, null)));
  explained.push(await explain(db, 'counts', { text: TOTALS_SQL, values: [companyId, userId] }));
  explained.push(await explain(db, 'thread', await inboxStatement(companyId, userId, { filter: 'all' }, target.thread)));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, explained.map((q) => `== ${q.name}\n${q.plan}\n`).join('\n'));
  return explained;
}
