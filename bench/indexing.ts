import { performance } from 'node:perf_hooks';
import { QueryTypes } from 'sequelize';
import { chunkDocument } from '../src/domain/knowledge/chunking';
import { trainDocument } from '../src/domain/knowledge/trainDocument';
import { scoped } from './support/cleanup';
import { withBenchDatabase } from './support/context';
import { benchChatbot, Corpus } from './support/corpus';
import type { BenchResult } from './support/report';
import { median, round } from './support/stats';

const CHARS = 1_000_000;
const ROUNDS = 5;

/**
 * Training a 1,000,000-character text source end to end (chunking, inserting, the generated tsvector
 * and its GIN index) in chunks per second; the baseline inserts the same passages into a plain table
 * with no search column or index, in the same batches, so the gap is what search costs at write time.
 */
export async function indexing(): Promise<BenchResult> {
  const startedAt = new Date();
  return scoped(() =>
    withBenchDatabase('indexing', async (ctx) => {
      const bot = await benchChatbot(ctx, 'Indexing bench');
      const text = new Corpus(7).document(CHARS);
      const chunks = chunkDocument('Manual', text);
      const sequelize = ctx.db.sequelize;
      await sequelize.query('CREATE TABLE plain_chunks (id bigserial PRIMARY KEY, source integer, position integer, title text, content text)');

      const trained: number[] = [];
      const plain: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        let began = performance.now();
        const { source, failure } = await trainDocument(ctx, bot, { type: 'text', title: `Manual ${round}`, content: text });
        if (failure || source.chunkCount !== chunks.length) throw new Error(`training failed: ${failure ?? source.chunkCount}`);
        trained.push(chunks.length / ((performance.now() - began) / 1000));

        began = performance.now();
        await sequelize.transaction(async (transaction) => {
          for (let i = 0; i < chunks.length; i += 500) {
            const batch = chunks.slice(i, i + 500);
            await sequelize.query(
              `INSERT INTO plain_chunks (source, position, title, content) VALUES ${batch.map(() => '(?, ?, ?, ?)').join(', ')}`,
              { replacements: batch.flatMap((c, j) => [round, i + j, c.title, c.content]), type: QueryTypes.INSERT, transaction },
            );
          }
        });
        plain.push(chunks.length / ((performance.now() - began) / 1000));
      }
      const chunksPerSecond = median(trained);
      return {
        name: 'indexing',
        title: 'knowledge indexing throughput, 1,000,000-character text source',
        goal: 'measured (no target in the issue); a 1 MB document trains inside one v1 request',
        pass: true,
        figures: { chunks_per_s: Math.round(chunksPerSecond), seconds_per_document: round(chunks.length / chunksPerSecond, 2) },
        baseline: { plain_insert_chunks_per_s: Math.round(median(plain)) },
        settings: { characters: CHARS, chunks: chunks.length, rounds: ROUNDS },
        notes: [
          'figures: trainDocument (save, chunk by headings/paragraphs, batched insert, generated weighted tsvector + GIN index, searchable check), median of the rounds',
          'baseline: the same passages inserted in the same 500-row batches into a table with no tsvector column and no GIN index',
          'text: synthetic help-centre markdown (bench/support/corpus.ts), Zipf-like word frequencies, a heading every 6 paragraphs',
        ],
        startedAt: startedAt.toISOString(),
        seconds: (Date.now() - startedAt.getTime()) / 1000,
      };
    }),
  );
}
