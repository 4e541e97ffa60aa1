import { asArray, asObject, asString, dig, parseJson } from './wire';

/** A string no provider sends as a delta: it marks where a template's content goes. */
const MARK = '\u0000parley-content\u0000';
const MARK_LITERAL = JSON.stringify(MARK);
/** What a JSON string literal's inside cannot hold as it stands: quotes, escapes and control characters end or change it. */
const SPECIAL = /["\\\u0000-\u001f]/;
/** After this many misses in a row (a chunk not of the template's shape, a template that could not be made), no template is learned again for the stream: its chunks are parsed whole, as before. */
const GIVE_UP_AFTER = 3;

/** What the adapter reads in a chunk that is a plain content delta: its text, and nothing else that could end or fail the stream. */
function plainDelta(chunk: unknown): string | undefined {
  if (asObject(chunk) === undefined || dig(chunk, 'error') || asObject(dig(chunk, 'usage'))) return undefined;
  const choice = asArray(dig(chunk, 'choices'))[0];
  if (asString(dig(choice, 'finish_reason'))) return undefined;
  return asString(dig(choice, 'delta', 'content'));
}

/**
 * Reads the text of an OpenAI-compatible stream chunk without `JSON.parse` when the chunk is the
 * stream's previous plain delta with another content string: a provider repeats every byte of a
 * delta chunk but its text (id, model, fingerprint, the choice's nulls; `created` changes once a
 * second). `JSON.parse` of each ~250-byte chunk was a fifth of a relayed token's instructions
 * (docs/performance.md, "Per-token cost, seventh round").
 *
 * A template is learned from a chunk parsed whole: the text before and after its content's string
 * literal, kept only once `JSON.parse` of the template with a marker in that place puts the marker at
 * `choices[0].delta.content` and finds no error, usage or finish reason (so a duplicate key, a
 * literal found in the wrong place, or any other shape is never a template). Then a chunk that starts
 * and ends with exactly those texts, with exactly one JSON string literal between them, is that
 * template with another leaf: its parse is the template's with this string as the content, which is
 * all the adapter reads of it. Anything else (another shape, a changed field, something in the middle
 * that is not one string literal) answers undefined: the caller parses it whole, as before.
 */
export class OpenAiChunks {
  private before = '';
  private after = '';
  private missesInRow = 0;
  private learning = true;

  /** The chunk's content when it is the template's shape ('' for an empty one); undefined: parse it whole, then `learn`. */
  quick(data: string): string | undefined {
    const { before, after } = this;
    if (!before) return undefined;
    const end = data.length - after.length;
    if (end - before.length < 2 || !data.startsWith(before) || !data.endsWith(after)) return this.miss();
    const literal = data.slice(before.length, end);
    if (literal.charCodeAt(0) !== 34 || literal.charCodeAt(literal.length - 1) !== 34) return this.miss();
    const inside = literal.slice(1, -1);
    // No quote, escape or control character: the literal is one string, its value the text as it stands.
    const text = SPECIAL.test(inside) ? asString(parseJson(literal)) : inside;
    // More than one token between the two texts (`"a","b":"c"`), or no string at all: not the template's shape.
    if (text === undefined) return this.miss();
    this.missesInRow = 0;
    return text;
  }

  /** After `data` was parsed whole into `chunk`: makes it the template when it is a plain delta whose content's literal can be found. */
  learn(data: string, chunk: unknown): void {
    if (!this.learning) return;
    const content = plainDelta(chunk);
    if (!content) return;
    const literal = JSON.stringify(content);
    const at = data.lastIndexOf(literal);
    if (at < 0) {
      this.miss();
      return;
    }
    const before = data.slice(0, at);
    const after = data.slice(at + literal.length);
    if (plainDelta(parseJson(before + MARK_LITERAL + after)) !== MARK) {
      this.miss();
      return;
    }
    this.before = before;
    this.after = after;
  }

  private miss(): undefined {
    this.before = '';
    this.after = '';
    if (++this.missesInRow >= GIVE_UP_AFTER) this.learning = false;
    return undefined;
  }
}
