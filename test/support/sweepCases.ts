import { parse as parseQueryString } from 'node:querystring';
import { makeStorable } from '../../src/http/jsonBody';

/** A JSON Schema object as src/openapi renders request schemas. */
export type JsonSchema = Record<string, unknown>;

/**
 * One malformed (or edge-case) input. `json` bodies are serialised by `serialise` (so `Raw` values can
 * stand for JSON text no JavaScript value produces, like `1e400`); `raw` bodies go out as given.
 * `parsed` is what the route's `parse(schema, ...)` receives, when the request gets that far.
 */
export interface SweepCase {
  label: string;
  json?: unknown;
  raw?: { bytes: string | Buffer; headers?: Record<string, string> };
  query?: string;
  /** Rejected before the route (bad JSON, too large, bad encoding): 400, 413 or 415. */
  transport?: boolean;
  /** Refused by Node's HTTP parser itself (a URL beyond its 16 KB header limit): 431 without a body. */
  nodeRefuses?: boolean;
  parsed?: unknown;
}

/** JSON text spliced into a body verbatim. */
export class Raw {
  constructor(readonly text: string) {}
}

const MEGABYTE = 1_048_576;
/** Over the app's largest body limit (8 MB, knowledge uploads; 96 KB elsewhere). */
const HUGE = 9 * MEGABYTE;

/** Strings that break naive handling: NUL, lone surrogates, bidi overrides, joiners, combining marks, controls. */
export const UNICODE_EDGES: Array<[string, string]> = [
  ['NUL inside', 'a\u0000b'],
  ['lone high surrogate', 'x\uD800y'],
  ['lone low surrogate', '\uDC00'],
  ['right-to-left override and mark', 'abc\u202Edef\u200F'],
  ['emoji with joiners and modifiers', '👨‍👩‍👧 👋🏽'],
  ['stacked combining marks', `e${'\u0301'.repeat(60)}`],
  ['BOM and zero-width characters only', '\uFEFF\u200B\u200D'],
  ['C0 and C1 controls', '\u0001\u001F\u007F\u0085'],
];

const WHITESPACE = ' \t\n\u00A0\u3000 ';

const WRONG_TYPE: Record<string, unknown> = { string: 'text', integer: 7, number: 7.5, boolean: true, array: ['x'], object: { x: 1 } };

/** Serialises a body, writing each `Raw` as its text. */
export function serialise(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof Raw) {
      raws.push(item.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return item;
  });
  return text === undefined ? '' : text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_, index: string) => raws[Number(index)]!);
}

/** What express.json hands the route for a serialised body. */

// ---------------------------------------------------------------- schema reading

/** The alternatives a schema allows (anyOf / oneOf / type lists), each as a plain schema. */
function branches(schema: JsonSchema): JsonSchema[] {
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return alternatives.flatMap(branches);
  if (Array.isArray(schema.type)) return (schema.type as string[]).map((type) => ({ ...schema, type }));
  if (schema.allOf) return [mergeAll(schema.allOf as JsonSchema[])];
  return [schema];
}

/** An intersection (`allOf`) read as one object schema: every part's properties, the first record rule. */
function mergeAll(parts: JsonSchema[]): JsonSchema {
  const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
  for (const part of parts.flatMap(branches)) {
    Object.assign(merged.properties as JsonSchema, part.properties ?? {});
    (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
    for (const key of ['additionalProperties', 'propertyNames', 'maxProperties'] as const) if (part[key] !== undefined) merged[key] ??= part[key];
  }
  return merged;
}

const typesOf = (schema: JsonSchema): Set<string> =>
  new Set(
    branches(schema).flatMap((branch) => {
      if (typeof branch.type === 'string') return [branch.type];
      const values = (branch.enum as unknown[] | undefined) ?? ('const' in branch ? [branch.const] : []);
      return values.map((value) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value));
    }),
  );

const firstWith = (schema: JsonSchema, key: string) => branches(schema).find((branch) => branch[key] !== undefined)?.[key];

// ---------------------------------------------------------------- values per field

/** Replacement values for one field: wrong types, limits crossed, odd text. Labels say what each is. */
function valuesFor(schema: JsonSchema): Array<[string, unknown]> {
  const types = typesOf(schema);
  const values: Array<[string, unknown]> = [['null', null]];
  for (const [type, value] of Object.entries(WRONG_TYPE)) {
    if (!types.has(type) && !(type === 'integer' && types.has('number')) && !(type === 'number' && types.has('integer'))) values.push([`wrong type (${type})`, value]);
  }
  if (types.has('string')) values.push(...stringValues(schema));
  if (types.has('integer') || types.has('number')) values.push(...numberValues(schema, types.has('integer')));
  if (types.has('boolean')) values.push(['"true" as a string', 'true'], ['1 for true', 1]);
  if (types.has('array')) values.push(...arrayValues(schema));
  if (types.has('object')) values.push(...objectValues(schema));
  return values;
}

function stringValues(schema: JsonSchema): Array<[string, unknown]> {
  const values: Array<[string, unknown]> = [
    ['empty string', ''],
    ['whitespace only', WHITESPACE],
    ['1 MB string', 'x'.repeat(MEGABYTE)],
    ...UNICODE_EDGES.map(([label, text]): [string, unknown] => [label, text]),
  ];
  const max = firstWith(schema, 'maxLength') as number | undefined;
  if (max !== undefined) {
    values.push([`${max} characters (the maximum)`, 'x'.repeat(max)], [`${max + 1} characters`, 'x'.repeat(max + 1)]);
    values.push([`${max} characters in astral emoji (${2 * Math.ceil((max + 1) / 2)} UTF-16 units)`, '😀'.repeat(Math.ceil((max + 1) / 2))]);
  }
  const min = firstWith(schema, 'minLength') as number | undefined;
  if (min !== undefined && min > 1) values.push([`${min - 1} characters`, 'x'.repeat(min - 1)]);
  const format = firstWith(schema, 'format');
  if (format === 'uuid') values.push(['not a uuid', 'not-a-uuid'], ['uuid with a bad digit', '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b9g'], ['uuid in braces', '{0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90}']);
  if (format === 'uri') values.push(['javascript: URL', 'javascript:alert(1)'], ['ftp URL', 'ftp://example.com/x'], ['scheme only', 'https://'], ['not a URL', 'not a url']);
  if (firstWith(schema, 'pattern')) values.push(['does not match the pattern', 'no match ✗']);
  const constant = branches(schema).find((branch) => 'const' in branch)?.const;
  const choices = (firstWith(schema, 'enum') as unknown[] | undefined) ?? (constant === undefined ? undefined : [constant]);
  const first = choices?.find((choice): choice is string => typeof choice === 'string');
  if (first) values.push(['not one of the choices', 'NOT-A-CHOICE'], ['a choice in upper case', first.toUpperCase()], ['a choice with a trailing space', `${first} `]);
  return values;
}

function numberValues(schema: JsonSchema, integer: boolean): Array<[string, unknown]> {
  const values: Array<[string, unknown]> = [
    ['-1', -1],
    ['0', 0],
    ['2^31 (past a 32-bit integer)', 2 ** 31],
    ['2^53 + 2 (past a safe integer)', 2 ** 53 + 2],
    ['1e308', 1e308],
    ['-1e308', -1e308],
    ['1e400 (Infinity once parsed)', new Raw('1e400')],
    ['-0', new Raw('-0')],
    ['a number as a string', '7'],
  ];
  if (integer) values.push(['1.5 (not whole)', 1.5]);
  const min = (firstWith(schema, 'minimum') ?? firstWith(schema, 'exclusiveMinimum')) as number | undefined;
  const max = (firstWith(schema, 'maximum') ?? firstWith(schema, 'exclusiveMaximum')) as number | undefined;
  if (min !== undefined && min > -(2 ** 53)) values.push([`below the minimum (${min - 1})`, min - 1]);
  if (max !== undefined && max < 2 ** 53) values.push([`above the maximum (${max + 1})`, max + 1], [`just above the maximum (${max + 0.01})`, max + 0.01]);
  return values;
}

function arrayValues(schema: JsonSchema): Array<[string, unknown]> {
  const values: Array<[string, unknown]> = [
    ['empty array', []],
    ['[null]', [null]],
    ['[{}]', [{}]],
    ['["x"]', ['x']],
    ['[1.5]', [1.5]],
    ['[-1]', [-1]],
    ['[2^31]', [2 ** 31]],
    ['[[1]]', [[1]]],
    ['100,000 items', Array.from({ length: 100_000 }, (_, index) => index + 1)],
  ];
  const max = firstWith(schema, 'maxItems') as number | undefined;
  if (max !== undefined) values.push([`${max + 1} items`, Array.from({ length: max + 1 }, (_, index) => index + 1)]);
  return values;
}

function objectValues(schema: JsonSchema): Array<[string, unknown]> {
  const values: Array<[string, unknown]> = [['empty object', {}], ['an array', []]];
  const object = branches(schema).find((branch) => branch.type === 'object');
  if (object?.additionalProperties !== undefined || object?.propertyNames !== undefined) {
    values.push(
      ['a 101-character key', { ['k'.repeat(101)]: 1 }],
      ['a 16,001-character value', { note: 'x'.repeat(16_001) }],
      ['5,000 keys', Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`k${index}`, index]))],
      ['nested 10,000 levels deep', new Raw(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)],
      ['nested 200,000 levels deep', new Raw(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`)],
      ['a NUL in a key', { 'a\u0000b': 1 }],
      ['a NUL in a value', { note: 'a\u0000b' }],
      ['a lone surrogate in a value', { note: 'x\uD800' }],
      ['a __proto__ key', new Raw('{"__proto__":{"polluted":true}}')],
    );
  }
  return values;
}

// ---------------------------------------------------------------- bodies

type Path = Array<string | number>;

function setAt(root: unknown, path: Path, value: unknown, remove = false): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(root) ? [...(root as unknown[])] : { ...(root as Record<string, unknown>) }) as Record<string | number, unknown>;
  if (!rest.length && remove) delete copy[head!];
  else copy[head!] = setAt(copy[head!], rest, value, remove);
  return copy;
}

/** Every field of a body example with its schema, nested objects included (dot paths). */
function fieldsOf(schema: JsonSchema, value: unknown, path: Path = []): Array<{ path: Path; schema: JsonSchema; required: boolean }> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const objects = branches(schema).filter((branch) => branch.type === 'object' && branch.properties);
  // A discriminated union: the branch whose constant matches the example.
  const object =
    objects.find((branch) => Object.entries(branch.properties as Record<string, JsonSchema>).every(([name, property]) => !('const' in property) || (value as Record<string, unknown>)[name] === property.const)) ??
    objects[0];
  if (!object) return [];
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.entries(object.properties as Record<string, JsonSchema>).flatMap(([name, property]) => {
    const here = [...path, name];
    const current = (value as Record<string, unknown>)[name];
    return [{ path: here, schema: property, required: required.has(name) }, ...fieldsOf(property, current ?? sampleObject(property), here)];
  });
}

/** For an absent optional object field: an empty object, so its own fields get mutated too. */
const sampleObject = (schema: JsonSchema) => (branches(schema).some((branch) => branch.type === 'object' && branch.properties) ? {} : undefined);

const label = (path: Path) => `body.${path.join('.')}`;

/** The malformed bodies for one endpoint: whole-body breakage, then every field of every example broken in turn. */
export function bodyCases(schema: JsonSchema, examples: unknown[]): SweepCase[] {
  const base = examples[0];
  const text = serialise(base);
  const raw = (name: string, bytes: string | Buffer, headers?: Record<string, string>, transport = true): SweepCase => ({ label: `body: ${name}`, raw: { bytes, headers }, transport });
  const cases: SweepCase[] = [
    raw('malformed JSON (cut short)', text.slice(0, -1)),
    raw('malformed JSON (trailing comma)', text.replace(/}$/, ',}')),
    raw("malformed JSON (single quotes)", "{'a': 1}"),
    raw('malformed JSON (bare word)', 'nul'),
    raw('top-level null', 'null'),
    raw('top-level string', '"text"'),
    raw('top-level number', '42'),
    raw('top-level true', 'true'),
    raw('latin1 charset', text, { 'Content-Type': 'application/json; charset=latin1' }),
    raw('gzip encoding over bytes that are not gzip', text, { 'Content-Encoding': 'gzip' }),
    raw('deflate encoding over bytes that are not deflate', text, { 'Content-Encoding': 'deflate' }),
    raw('br encoding over bytes that are not brotli', text, { 'Content-Encoding': 'br' }),
    raw('unknown content encoding', text, { 'Content-Encoding': 'snappy' }),
    raw(`a ${HUGE / MEGABYTE} MB body (over the 8 MB limit)`, serialise({ ...(base as object), padding: 'x'.repeat(HUGE) })),
    { label: 'body: 200,000 nested arrays', raw: { bytes: `${'['.repeat(200_000)}${']'.repeat(200_000)}` }, parsed: safeJson(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) },
    { label: 'body: empty with a JSON content type', raw: { bytes: '' }, parsed: undefined },
    { label: 'body: JSON sent as text/plain', raw: { bytes: text, headers: { 'Content-Type': 'text/plain' } }, parsed: undefined },
    { label: 'body: invalid UTF-8 bytes inside a string', raw: { bytes: invalidUtf8Body(base) }, parsed: JSON.parse(invalidUtf8Body(base).toString('utf8')) },
    { label: 'body: top-level empty array', json: [] },
    { label: 'body: the example inside an array', json: [base] },
    { label: 'body: empty object', json: {} },
    { label: 'body: only an unknown field', json: { zz_unknown: 1 } },
    { label: 'body: the example plus unknown fields', json: { ...(base as object), zz_unknown: 'x', constructor: { prototype: { polluted: true } } } },
    duplicateKey(text),
    { label: 'body: the example plus a __proto__ key', raw: { bytes: text.replace(/^\{/, '{"__proto__":{"polluted":true},') }, parsed: JSON.parse(text.replace(/^\{/, '{"__proto__":{"polluted":true},')) },
  ];
  // Later examples add the fields the first does not reach (another type's, the optional ones).
  const seen = new Set<string>();
  for (const example of examples) {
    const variant = examples.length > 1 ? ` [example ${examples.indexOf(example) + 1}]` : '';
    for (const field of fieldsOf(schema, example)) {
      const where = field.path.join('.');
      if (seen.has(where)) continue;
      seen.add(where);
      if (field.required) cases.push({ label: `${label(field.path)}: missing${variant}`, json: setAt(example, field.path, undefined, true) });
      for (const [name, value] of valuesFor(field.schema)) cases.push({ label: `${label(field.path)}: ${name}${variant}`, json: setAt(example, field.path, value) });
    }
  }
  for (const item of cases) {
    // The route sees the body made storable (a NUL dropped: `a\u0000b` arrives as `ab`).
    if (item.json !== undefined && !('parsed' in item)) makeStorable((item.parsed = safeJson(serialise(item.json))));
    // What JSON.parse cannot read here, body-parser cannot read either: a 400 before the route.
    if ((item.json !== undefined || item.label.includes('nested')) && item.parsed === undefined) item.transport = true;
  }
  return cases;
}

/** The first key again at the end with a number: JSON.parse keeps the last, so the route sees the number. */
function duplicateKey(text: string): SweepCase {
  const key = /^\{"([^"]+)":/.exec(text)?.[1] ?? 'zz';
  const bytes = text.replace(/}$/, `,"${key}":12345}`);
  return { label: `body: "${key}" twice (the second a number)`, raw: { bytes }, parsed: safeJson(bytes) };
}

/** The example with bytes that are not UTF-8 at the start of its first string value. */
function invalidUtf8Body(example: unknown): Buffer {
  const text = serialise(example);
  const at = text.indexOf('":"');
  if (at < 0) return Buffer.from(text);
  return Buffer.concat([Buffer.from(text.slice(0, at + 3)), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from(text.slice(at + 3))]);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- queries

const encode = (query: Record<string, string>) =>
  Object.entries(query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');

/** The malformed query strings for one endpoint: each parameter missing, empty, too long, mistyped or odd. */
export function queryCases(schema: JsonSchema, example: Record<string, string>): SweepCase[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const cases: SweepCase[] = [];
  const without = (name: string) => Object.fromEntries(Object.entries(example).filter(([key]) => key !== name));
  const withRaw = (name: string, rawValue: string) => [encode(without(name)), `${encodeURIComponent(name)}=${rawValue}`].filter(Boolean).join('&');
  for (const [name, property] of Object.entries(properties)) {
    const types = typesOf(property);
    const add = (what: string, query: string, extra: Partial<SweepCase> = {}) => cases.push({ label: `query.${name}: ${what}`, query, ...extra });
    if (required.has(name)) add('missing', encode(without(name)));
    add('empty', withRaw(name, ''));
    add('whitespace only', withRaw(name, '%20%09%20'));
    add('8,000 characters', withRaw(name, 'x'.repeat(8000)));
    add('1 MB (past the URL limit)', withRaw(name, 'x'.repeat(MEGABYTE)), { nodeRefuses: true });
    const max = firstWith(property, 'maxLength') as number | undefined;
    if (max !== undefined) add(`${max + 1} characters`, withRaw(name, 'x'.repeat(max + 1)));
    if (types.has('integer') || types.has('number')) {
      for (const value of ['abc', '-1', '0', '1.5', '1e400', '99999999999999999999', '0x1F', '%207%20', 'Infinity', 'NaN', '2147483648']) add(`"${decodeURIComponent(value)}"`, withRaw(name, value));
    }
    const first = (firstWith(property, 'enum') as string[] | undefined)?.[0];
    if (first) add('not one of the choices', withRaw(name, 'NOPE')), add('a choice in upper case', withRaw(name, first.toUpperCase()));
    add('given twice (an array)', `${encode(example)}&${encodeURIComponent(name)}=${encodeURIComponent(example[name] ?? 'x')}&${encodeURIComponent(name)}=y`);
    add('bracket syntax', [encode(without(name)), `${encodeURIComponent(name)}[a]=1`].filter(Boolean).join('&'));
    for (const [what, value] of [['NUL', '%00'], ['lone surrogate (as UTF-8 bytes)', '%ED%A0%80'], ['invalid UTF-8', '%C3%28%FF'], ['right-to-left override', '%E2%80%AE'], ['emoji', '%F0%9F%91%8B%F0%9F%8F%BD']] as const) {
      add(what, withRaw(name, value));
    }
  }
  cases.push({ label: 'query: an unknown parameter', query: `${encode(example)}&zz_unknown=1` });
  cases.push({ label: 'query: a __proto__ parameter', query: `${encode(example)}&__proto__=x&constructor=y` });
  for (const item of cases) item.parsed = item.nodeRefuses ? undefined : { ...parseQueryString(item.query!) };
  return cases;
}
