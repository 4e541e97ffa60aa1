import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * Retrieval as it was before passages were parsed in their own language and question words were
 * looked up by spelling (src/domain/knowledge/retrieve.ts at commit c507ad2), kept frozen here as the
 * `search` benchmark's same-run baseline: English stems only, exact words, the rarest terms picking
 * the candidates, ts_rank over every term. Same pool, same passages, so the difference is the change.
 */
const MAX_TERMS = 24;
const CANDIDATES = 3_000;

interface Term {
  lexeme: string;
  chunks: number;
}

export async function previousRetrieval(sequelize: Sequelize, chatbotId: number, question: string, limit = 5): Promise<unknown[]> {
  const terms = await sequelize.query<Term>(
    `SELECT t.lexeme, k.chunks
       FROM unnest(tsvector_to_array(to_tsvector('english', :question))) AS t(lexeme)
       JOIN knowledge_terms k ON k.chatbot_id = :chatbotId AND k.lexeme = t.lexeme
      ORDER BY k.chunks, t.lexeme
      LIMIT :max`,
    { replacements: { chatbotId, question, max: MAX_TERMS }, type: QueryTypes.SELECT },
  );
  if (!terms.length) return [];
  return sequelize.query(
    `SELECT c.id AS "chunkId", c.source_id AS "sourceId", s.type AS "sourceType", s.title AS "sourceTitle", c.title, c.url, c.content, best.rank
       FROM (SELECT id, ts_rank(search, CAST(:score AS tsquery), 1) AS rank
               FROM (SELECT id, search FROM knowledge_chunks
                      WHERE chatbot_id = :chatbotId AND search @@ CAST(:match AS tsquery)
                      LIMIT :candidates) candidates
              ORDER BY rank DESC, id
              LIMIT :limit) best
       JOIN knowledge_chunks c ON c.id = best.id
       JOIN knowledge_sources s ON s.id = c.source_id
      ORDER BY best.rank DESC, c.id`,
    { replacements: { chatbotId, limit, candidates: CANDIDATES, match: anyOf(rarest(terms)), score: anyOf(terms) }, type: QueryTypes.SELECT },
  );
}

function rarest(terms: Term[]): Term[] {
  const picked: Term[] = [];
  let total = 0;
  for (const term of terms) {
    if (picked.length && total + Number(term.chunks) > CANDIDATES) break;
    picked.push(term);
    total += Number(term.chunks);
  }
  return picked;
}

function anyOf(terms: Term[]): string {
  return terms.map(({ lexeme }) => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(' | ');
}
