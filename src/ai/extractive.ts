import { setImmediate as nextTick } from 'node:timers/promises';
import type { Passage } from '../domain/knowledge/retrieve';
import type { ChatOptions, Completion } from './providers/types';

/** The model name usage records carry for an extractive answer (priced at nothing). */
export const EXTRACTIVE_MODEL = 'extractive';

export const NO_ANSWER =
  "I couldn't find that in what I know. Could you put it another way, or ask to talk to a person?";

const ANSWER_CHARS = 700;
/** The best passages whose sentences an answer may quote. */
export const EXTRACTIVE_PASSAGES = 2;
const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how i in is it me my of on or our the to we what when where which who why will with you your'.split(' '),
);

/**
 * The answer when a workspace has no provider key at all: the sentences of the best-matching
 * passages that share the most words with the question (a Q&A passage answers with its answer),
 * streamed in small pieces like a model's reply so every client path is the same. `matched` holds,
 * per passage, the words retrieval matched in it (domain/knowledge/matches.ts); without it, words
 * are compared after cutting common English endings.
 */
export async function extractiveAnswer(
  question: string,
  passages: Passage[],
  options: ChatOptions = {},
  matched: ReadonlyMap<number, ReadonlySet<string>> = new Map(),
): Promise<Completion & { used: Passage[] }> {
  const { text, used } = compose(question, passages, matched);
  if (options.onDelta) {
    for (const piece of text.match(/\S+(?:\s+\S+){0,3}\s*/g) ?? [text]) {
      options.signal?.throwIfAborted();
      options.onDelta(piece);
      await nextTick();
    }
  }
  return { text, used, model: EXTRACTIVE_MODEL, tokensIn: 0, tokensOut: 0 };
}

function compose(question: string, passages: Passage[], matched: ReadonlyMap<number, ReadonlySet<string>>): { text: string; used: Passage[] } {
  const best = passages[0];
  if (!best) return { text: NO_ANSWER, used: [] };
  if (best.sourceType === 'qa') return { text: clip(best.content), used: [best] };
  const terms = stems(question);
  const sentences = passages.slice(0, EXTRACTIVE_PASSAGES).flatMap((passage, p) =>
    splitSentences(passage.content).map((sentence, i) => {
      const words = matched.get(passage.chunkId);
      return { sentence, order: p * 10_000 + i, score: words?.size ? matches(words, sentence) : overlap(terms, sentence) };
    }),
  );
  const chosen = sentences
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, 3)
    .sort((a, b) => a.order - b.order);
  const picked = chosen.length ? chosen : sentences.slice(0, 2);
  const used = passages.slice(0, EXTRACTIVE_PASSAGES).filter((_, p) => picked.some((s) => Math.floor(s.order / 10_000) === p));
  return { text: clip(picked.map((s) => s.sentence).join(' ')), used };
}

function splitSentences(text: string): string[] {
  return (text.match(/[^.!?\n]+(?:[.!?]+|\n|$)/g) ?? []).map((s) => s.trim()).filter((s) => s.length > 2);
}

function stems(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)).map(stem));
}

function stem(word: string): string {
  return word.length > 4 ? word.replace(/(ing|ed|es|s)$/, '') : word;
}

function overlap(terms: Set<string>, sentence: string): number {
  let score = 0;
  for (const term of stems(sentence)) if (terms.has(term)) score += 1;
  return score;
}

/** How many of the matched words the sentence holds, each counted once. */
function matches(words: ReadonlySet<string>, sentence: string): number {
  return new Set((sentence.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => words.has(word))).size;
}

function clip(text: string): string {
  if (text.length <= ANSWER_CHARS) return text.trim();
  const cut = text.lastIndexOf(' ', ANSWER_CHARS);
  return `${text.slice(0, cut > 0 ? cut : ANSWER_CHARS).trim()}…`;
}
