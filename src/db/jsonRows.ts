/**
 * A batch of rows as one JSON bind parameter, for statements that read it with `json_to_recordset`.
 * `JSON.stringify` walks the rows natively; column arrays (`unnest($1::int[], $2::text[], ...)`) made
 * `pg` build an array literal element by element in JavaScript, escaping each one, which was most of
 * a batched statement's client work (docs/performance.md, "Arrivals, sixth round").
 *
 * One difference to even out: `JSON.stringify` writes a lone surrogate (half of a UTF-16 pair, which
 * a JSON request body can carry) as an escape, `\udXXX`, and Postgres refuses that in `json`; `pg`
 * encoded the same string to UTF-8 with U+FFFD in its place, so that is what goes in here too. A
 * valid pair is written as the character itself, so every such escape is a lone surrogate.
 */
export function jsonRows(rows: readonly object[]): string {
  const text = JSON.stringify(rows);
  return text.includes('\\u') ? text.replace(LONE_SURROGATE, replaced) : text;
}

/** An escaped backslash (skipped whole, so the text after it is not read as an escape) or a surrogate's escape. */
const LONE_SURROGATE = /\\(?:\\|u[dD][89a-fA-F][0-9a-fA-F]{2})/g;

const replaced = (match: string) => (match === '\\\\' ? match : '\\ufffd');
