import { QueryTypes, type Transaction } from 'sequelize';
import { Chatbot, KnowledgeChunk } from '../../models';
import { settingsOf } from '../chatbots/flags';
import { detectLanguage } from '../conversations/language';

/**
 * PostgreSQL's text search configuration per ISO 639-1 code: each stems its language's words and
 * drops its stop words. Which of them a server has depends on its version (armenian, basque,
 * catalan, hindi, serbian and yiddish came later than the rest), so each is checked before use.
 */
const CONFIGS: Readonly<Record<string, string>> = {
  ar: 'arabic', hy: 'armenian', eu: 'basque', ca: 'catalan', da: 'danish', nl: 'dutch', en: 'english', fi: 'finnish',
  fr: 'french', de: 'german', el: 'greek', hi: 'hindi', hu: 'hungarian', id: 'indonesian', ga: 'irish', it: 'italian',
  lt: 'lithuanian', ne: 'nepali', no: 'norwegian', nb: 'norwegian', nn: 'norwegian', pt: 'portuguese', ro: 'romanian',
  ru: 'russian', sr: 'serbian', es: 'spanish', sv: 'swedish', ta: 'tamil', tr: 'turkish', yi: 'yiddish',
};
/** Where no language is known: what every passage was parsed with before languages were told apart. */
export const DEFAULT_SEARCH_CONFIG = 'english';
/** A language PostgreSQL has no configuration for: words as written, lower-cased, nothing dropped. */
const NO_STEMMING = 'simple';
/** Enough of a document to tell its language; the detector reads the end of what it is given. */
export const LANGUAGE_SAMPLE_CHARS = 1_000;

let installed: Promise<Set<string>> | undefined;

/** The configurations this server has, read once per process (they change only with a PostgreSQL upgrade). */
function installedConfigs(transaction?: Transaction): Promise<Set<string>> {
  installed ??= KnowledgeChunk.sequelize!
    .query<{ name: string }>('SELECT cfgname AS name FROM pg_ts_config', { type: QueryTypes.SELECT, transaction })
    .then((rows) => new Set(rows.map((row) => row.name)))
    .catch((error: unknown) => {
      installed = undefined;
      throw error;
    });
  return installed;
}

/**
 * The configuration a source's passages are parsed with: the chatbot's language when its settings
 * fix one, else the language the text itself is written in, else English. A question is later parsed
 * with every configuration its chatbot's sources use (retrieve.ts), so sources in several languages,
 * or trained before the chatbot's language changed, are each still found in their own words.
 */
export async function searchConfigFor(chatbotId: number, text: string, transaction?: Transaction): Promise<string> {
  const chatbot = await Chatbot.findByPk(chatbotId, { attributes: ['id', 'branding'], transaction });
  const fixed = chatbot ? settingsOf(chatbot).language : 'auto';
  const language = fixed !== 'auto' ? fixed : detectLanguage(text.slice(0, LANGUAGE_SAMPLE_CHARS));
  if (!language) return DEFAULT_SEARCH_CONFIG;
  const config = CONFIGS[language];
  return config && (await installedConfigs(transaction)).has(config) ? config : NO_STEMMING;
}
