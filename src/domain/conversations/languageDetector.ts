import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { remembered } from '../../remembered';

/**
 * tinyld's `detect` and `detectAll` (its "normal" build, the package's default export), computed the same way with
 * the same tables, without its per-word allocations. tinyld scores each word of the sample by
 * building, for every one of its n-grams, a `Set` of the languages the gram is seen in and testing
 * each of its 62 languages against it, after a fresh `Set` and `Map` of all languages per word; on a
 * visitor's sample of 40 words that is ~0.15 ms per detection, on every follow-up before `meta`.
 * Here each gram's languages are a list of (language, weight) pairs built once, the first time the
 * gram is met, and a word's scores are one array.
 *
 * The result is the same to the bit: every language's score is the same sum of the same terms in
 * the same order (the grams in tinyld's order, each term `count * gram length / 4` as tinyld writes
 * it), the ranking is tinyld's stable sort (score, then tinyld's language order), and the merge of a
 * text's chunks is tinyld's own code, unchanged. test/unit/languageDetector.test.ts compares both on
 * a varied corpus.
 *
 * tinyld does not export its tables, so they are taken from its bundle, evaluated once more with its
 * internals returned (the bundle is pure data and functions). The names are those of the version
 * this was written against: any other version, or a bundle that does not hold what is expected, makes
 * `fastDetect` null and the caller uses tinyld's `detect` itself.
 */

const WRITTEN_FOR = '1.3.4';

/** What tinyld's bundle holds under its minified names (tinyld 1.3.4, normal build). */
interface Internals {
  /** The tables: a unique gram's language (ISO 639-3), and a shared gram's counts per language. */
  r0: { uniques: Record<string, string>; multiples: Record<string, Record<string, number>> };
  /** The grams that belong to one language only. */
  B0: Set<string>;
  /** Its languages (ISO 639-3), in its order. */
  g: Set<string>;
  /** The gram sizes. */
  h: number[];
  /** ISO 639-3 to its code (ISO 639-1 where there is one). */
  N: (language: string) => string;
  /** cleanString: lower case, punctuation and digits out, spaces collapsed. */
  V: (text: string) => string;
}

/** A shared gram's languages, as indexes into `languages`, with the term each adds to its score. */
interface GramWeights {
  languages: number[];
  terms: number[];
}

/** tinyld's chunk splitter and word splitter (`i0`, `n0`), copied: they are plain regexes. */
const CHUNK = /([,，、。!¿?！？":;()「」{}„“«»”"“<>⋯《》*]|[.[\]\\])+/;
const WORD = /[ ]+/;
/** tinyld's accent strip after NFD (`R`); ASCII is left as it is by both, so it is skipped. */
const COMBINING = /[\u0300-\u036f]/g;
const ASCII = /^[\x00-\x7f]*$/;
/** tinyld keeps the best eight languages of each word. */
const WORD_TOP = 8;
const NO_GRAM: GramWeights = { languages: [], terms: [] };

function loadInternals(): Internals | null {
  try {
    const entry = require.resolve('tinyld');
    const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version?: string };
    if (version !== WRITTEN_FOR || !entry.endsWith('tinyld.normal.node.js')) return null;
    const source = readFileSync(entry, 'utf8');
    const bundle = runInThisContext(`(function (module, exports, require) {${source}\n;return { r0, B0, g, h, N, V };})`, { filename: entry }) as (
      module: { exports: unknown },
      exports: unknown,
      load: NodeRequire,
    ) => Internals;
    const internals = bundle({ exports: {} }, {}, require);
    const { r0, B0, g, h, N, V } = internals;
    const shaped = r0 && typeof r0.uniques === 'object' && typeof r0.multiples === 'object' && B0 instanceof Set && g instanceof Set && Array.isArray(h);
    return shaped && typeof N === 'function' && typeof V === 'function' ? internals : null;
  } catch {
    return null;
  }
}

function detectorOf({ r0, B0, g, h, N, V }: Internals): (text: string) => Ranked[] {
  const languages = [...g];
  const codes = languages.map((language) => N(language));
  const weights = new Map<string, GramWeights>();
  const words = new Map<string, readonly WordLanguage[]>();
  const uniques = new Map<string, string>();
  const chunkScores = new Map<string, ChunkScore>();
  const scores = new Float64Array(languages.length);

  /** tinyld's `R`: NFD, combining accents removed. */
  const folded = (gram: string): string => (ASCII.test(gram) ? gram : gram.normalize('NFD').replace(COMBINING, ''));

  /** A shared gram's (language, term) pairs in tinyld's language order, built on first use; tinyld reads only own entries' keys. */
  function weightsOf(gram: string): GramWeights {
    const known = weights.get(gram);
    if (known) return known;
    // A gram of no language is not remembered: the visitors' texts would grow the map without end; the tables' grams bound it.
    const counts = Object.hasOwn(r0.multiples, gram) ? r0.multiples[gram] : undefined;
    if (!counts) return NO_GRAM;
    const found: GramWeights = { languages: [], terms: [] };
    const present = new Set(Object.keys(counts));
    for (const [index, language] of languages.entries()) {
      if (!present.has(language)) continue;
      found.languages.push(index);
      found.terms.push((counts[language]! * gram.length) / 4); // tinyld's term, computed as it computes it
    }
    weights.set(gram, found);
    return found;
  }

  /** tinyld's `p`: the grams of `size` of the word padded with spaces, none with two spaces in a row or only blanks. */
  function eachGram(word: string, size: number, use: (gram: string) => boolean): boolean {
    const pad = ' '.repeat(size - 1);
    const padded = pad + word + pad;
    for (let at = 0; at < padded.length - (size - 1); at++) {
      const gram = padded.substring(at, at + size);
      if (gram.includes('  ') || gram.trim().length === 0) continue;
      if (use(gram)) return true;
    }
    return false;
  }

  /** tinyld's `o0`: the language of the first gram (smallest size first) that belongs to one language only, or "". */
  function uniqueLanguage(chunk: string): string {
    return remembered(uniques, chunk, uniqueLanguageOf, REMEMBERED);
  }

  function uniqueLanguageOf(chunk: string): string {
    let found = '';
    for (const size of h) {
      const hit = eachGram(chunk, size, (gram) => {
        if (!B0.has(gram)) return false;
        found = N(r0.uniques[gram]!);
        return true;
      });
      if (hit) return found;
    }
    return '';
  }

  /** tinyld's `t0`: the word's best eight languages with their accuracy (score over the best score, rounded as tinyld rounds). */
  function wordLanguages(word: string): readonly WordLanguage[] {
    return remembered(words, word, wordLanguagesOf, REMEMBERED);
  }

  function wordLanguagesOf(word: string): readonly WordLanguage[] {
    scores.fill(0);
    for (const size of h) {
      eachGram(word, size, (gram) => {
        const { languages: indexes, terms } = weightsOf(folded(gram));
        for (let i = 0; i < indexes.length; i++) scores[indexes[i]!] = scores[indexes[i]!]! + terms[i]!;
        return false;
      });
    }
    // The first eight of a stable sort by score, highest first: ties keep tinyld's language order.
    const top: number[] = [];
    let best = -Infinity;
    for (let index = 0; index < scores.length; index++) {
      const score = scores[index]!;
      if (score > best) best = score;
      if (top.length === WORD_TOP && score <= scores[top[WORD_TOP - 1]!]!) continue;
      let at = top.length;
      while (at > 0 && scores[top[at - 1]!]! < score) at--;
      top.splice(at, 0, index);
      if (top.length > WORD_TOP) top.pop();
    }
    const s = best || 1;
    return top.map((index) => ({ code: codes[index]!, accuracy: 1 - round((s - scores[index]!) / s) }));
  }

  /**
   * What one raw chunk adds to tinyld's merge (`S`), computed once per chunk text: its cleaned length
   * (the sort key), and either its unique-gram language or its words' (language, accuracy) terms in
   * tinyld's order with the words' lengths added up. A follow-up's sample repeats the chunks of the
   * earlier lines, so only the new ones are cleaned, split and looked up.
   */
  function chunkScoreOf(raw: string): ChunkScore {
    const chunk = V(raw);
    const unique = chunk ? uniqueLanguage(chunk) : '';
    if (!chunk || unique) return { length: chunk.length, unique, codes: [], accuracies: [], wordLength: 0 };
    const codes: string[] = [];
    const accuracies: number[] = [];
    let wordLength = 0;
    for (const word of chunk.split(WORD)) {
      for (const { code, accuracy } of wordLanguages(word)) {
        codes.push(code);
        accuracies.push(accuracy);
      }
      wordLength += word.length;
    }
    return { length: chunk.length, unique, codes, accuracies, wordLength };
  }

  /**
   * tinyld's `S`, its merge of a text's chunks: the same chunks (cleaned, empty ones dropped, the
   * seven longest by a stable sort), the same additions to each language's score in the same order,
   * so the same sums to the bit; each chunk's part is remembered (`chunkScoreOf`).
   */
  return function detectAll(text: string): Ranked[] {
    let chunks = text
      .split(CHUNK)
      .map((chunk) => remembered(chunkScores, chunk, chunkScoreOf, REMEMBERED_CHUNKS))
      .filter((chunk) => chunk.length > 0);
    chunks.sort((a, b) => b.length - a.length);
    chunks = chunks.slice(0, 7);
    let total = 0;
    const merged = new Map<string, number>();
    for (const chunk of chunks) {
      if (chunk.unique) {
        merged.set(chunk.unique, (merged.get(chunk.unique) || 0) + 1 * chunk.length);
        total += chunk.length;
        continue;
      }
      const { codes, accuracies } = chunk;
      for (let i = 0; i < codes.length; i++) merged.set(codes[i]!, (merged.get(codes[i]!) || 0) + accuracies[i]!);
      total += chunk.wordLength;
    }
    const ranked = [...merged].filter((entry) => entry[1] > 0);
    ranked.sort((a, b) => b[1] - a[1]);
    return ranked.map(([lang, score]) => ({ lang, accuracy: score / total }));
  };
}

/** One chunk's part of tinyld's merge (`chunkScoreOf`). */
interface ChunkScore {
  /** The cleaned chunk's length: tinyld sorts chunks by it and drops the empty ones. */
  length: number;
  /** The language of its first unique gram, or "". */
  unique: string;
  /** Without a unique gram: each word's best languages, word after word, as parallel lists. */
  codes: string[];
  accuracies: number[];
  /** The words' lengths added up (integers: their order does not matter). */
  wordLength: number;
}

/** tinyld's `detectAll` answer: the languages found, best first, with their share of the text. */
export interface Ranked {
  lang: string;
  accuracy: number;
}

/** A language of a word's best eight, with its accuracy. */
interface WordLanguage {
  code: string;
  accuracy: number;
}

/**
 * A word's languages (and a chunk's unique-gram language) depend on nothing but its text, and a
 * follow-up's sample repeats the conversation's earlier lines (and their words) that the previous
 * follow-up scored: each is computed once and remembered, up to a bound, after which the memory
 * starts again empty.
 */
const REMEMBERED = 5_000;

/** A chunk's part holds up to eight terms per word (a 300-character sample: some 40 words): fewer of them. */
const REMEMBERED_CHUNKS = 1_000;

/** tinyld's rounding of a word's accuracy (`k`). */
const round = (value: number): number => Math.round(value * 1e4) / 1e4;

const internals = loadInternals();

/** tinyld's `detectAll(text)` (no options), or null when its tables could not be taken from this version of it. */
export const fastDetectAll: ((text: string) => Ranked[]) | null = internals && detectorOf(internals);

/** tinyld's `detect(text)`: the best language's code, or "" (null as `fastDetectAll`). */
export const fastDetect: ((text: string) => string) | null =
  fastDetectAll &&
  ((text: string): string => {
    const [best] = fastDetectAll(text);
    return best ? best.lang : '';
  });
