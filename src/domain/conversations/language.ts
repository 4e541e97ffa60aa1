import { QueryTypes, type Transaction } from 'sequelize';
import { fastDetect } from './languageDetector';
import { Message } from '../../models';

/**
 * The end of the visitor's text that is looked at. The detector's cost grows with the words it scores
 * (about 25 us each where no word is unique to one language), so the sample is bounded in characters
 * and in words: a few sentences tell a language, and a flood of repeated words costs no more.
 */
export const LANGUAGE_SAMPLE_CHARS = 300;
const SAMPLE_WORDS = 40;
/** Longer "words" are scripts without spaces (a Japanese sentence), a pasted token, or a flood: their start is enough. */
const WORD_CHARS = 40;
/** Below this many letters a guess says nothing ("ok", "thx", an order number). */
export const LANGUAGE_MIN_LETTERS = 20;
/** Enough earlier visitor messages to fill the sample in a usual chat, without reading a long thread. */
export const EARLIER_MESSAGES = 10;
const ISO_639_1 = /^[a-z]{2}$/;
const LETTER = /\p{L}/u;
// Emoji and symbols say nothing of a language; stacked combining marks only make words long.
const NOT_TEXT = /[^\p{L}\p{M}\p{P}\s]+/gu;
const STACKED_MARKS = /(\p{M}{2})\p{M}+/gu;

/** The ISO 639-1 code of the language of `text`, or null while it holds fewer than 20 letters or nothing is recognised. */
export function detectLanguage(text: string): string | null {
  const sample = sampleOf(text);
  if (!hasLetters(sample, LANGUAGE_MIN_LETTERS)) return null;
  const code = (fastDetect ?? tinyldDetect())(sample);
  return ISO_639_1.test(code) ? code : null;
}

/** tinyld's own `detect`, loaded only when its tables could not be taken for the faster copy (another version of it). */
function tinyldDetect(): (text: string) => string {
  return (require('tinyld') as typeof import('tinyld')).detect;
}

/** What the detector is given: the text's last 300 characters, emoji and symbols out, at most its last 40 words of at most 40 characters. */
export function sampleOf(text: string): string {
  const tail = text.slice(-LANGUAGE_SAMPLE_CHARS);
  const words = asciiWords(tail) ?? tail.replace(NOT_TEXT, ' ').replace(STACKED_MARKS, '$1').split(/\s+/);
  return words
    .filter(Boolean)
    .slice(-SAMPLE_WORDS)
    .map((word) => word.slice(0, WORD_CHARS))
    .join(' ');
}

/**
 * Whether each ASCII character is part of a word for `sampleOf`: kept by NOT_TEXT and not a space.
 * Built from those same regexes, so the table cannot disagree with them.
 */
const ASCII_WORD_CHAR = Array.from({ length: 128 }, (_, code) => {
  const char = String.fromCharCode(code);
  return char.replace(NOT_TEXT, ' ') === char && !/\s/.test(char);
});

/**
 * `sampleOf`'s words for a text of ASCII characters alone (most visitors' messages), without its
 * Unicode-class regexes, which cost more than the rest of the sample: NOT_TEXT turns each run of
 * other characters into a space, ASCII holds no combining marks, and the split on spaces then keeps
 * the runs of word characters; so do these. Undefined for any other text (the regexes decide).
 */
function asciiWords(text: string): string[] | undefined {
  const words: string[] = [];
  let start = -1;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code > 127) return undefined;
    if (ASCII_WORD_CHAR[code]) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      words.push(text.slice(start, at));
      start = -1;
    }
  }
  if (start >= 0) words.push(text.slice(start));
  return words;
}

/**
 * The language of the visitor's messages in this conversation so far, ending with `latest` (the one
 * being stored in `transaction`): the earlier ones are read only when `latest` alone does not fill
 * the sample, through the (conversation_id, id) index, unless the caller has them already
 * (`earlierNewestFirst`: the turn read them for the flood rule).
 */
export async function visitorLanguage(
  conversation: { id: number; messageCount?: number },
  latest: string,
  transaction: Transaction | undefined,
  earlierNewestFirst?: readonly { tail: string }[],
): Promise<string | null> {
  if (earlierNewestFirst) return languageWith(conversation, latest, earlierNewestFirst);
  const earlier = wantsEarlier(conversation, latest) ? await earlierVisitorText(conversation.id, transaction) : [];
  return detectLanguage([...earlier, latest].join('\n'));
}

/** `visitorLanguage` when the caller has the earlier visitor lines (newest first): no read, so no wait. */
export function languageWith(conversation: { messageCount?: number }, latest: string, earlierNewestFirst: readonly { tail: string }[]): string | null {
  const earlier = wantsEarlier(conversation, latest) ? earlierNewestFirst.slice(0, EARLIER_MESSAGES).map((line) => line.tail).reverse() : [];
  return detectLanguage([...earlier, latest].join('\n'));
}

/** Earlier lines complete the sample only when `latest` alone does not fill it and there are any. */
const wantsEarlier = (conversation: { messageCount?: number }, latest: string): boolean =>
  latest.length < LANGUAGE_SAMPLE_CHARS && !!conversation.messageCount;

async function earlierVisitorText(conversationId: number, transaction: Transaction | undefined): Promise<string[]> {
  const rows = await Message.sequelize!.query<{ content: string }>(
    `SELECT right(content, ${LANGUAGE_SAMPLE_CHARS}) AS content FROM messages
      WHERE conversation_id = $1 AND role = 'visitor' ORDER BY id DESC LIMIT ${EARLIER_MESSAGES}`,
    { bind: [conversationId], type: QueryTypes.SELECT, transaction },
  );
  return rows.map((row) => row.content).reverse();
}

function hasLetters(text: string, wanted: number): boolean {
  let found = 0;
  for (const char of text) if (LETTER.test(char) && ++found >= wanted) return true;
  return false;
}
