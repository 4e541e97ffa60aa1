import { strict as assert } from 'node:assert';
import type { Request, Response } from 'express';
import { storableBody } from '../../src/http/jsonBody';

const clean = (body: unknown): unknown => {
  const req = { body } as Request;
  storableBody(req, {} as Response, () => undefined);
  return req.body;
};

describe('storableBody: request text PostgreSQL can store', () => {
  it('drops NUL and turns lone surrogates into U+FFFD, in values and keys, at any depth', () => {
    const body = JSON.parse('{"a\\u0000b": "x\\u0000y", "list": ["\\ud800", "ok \\ud83d\\ude00", {"deep": "\\udc00z"}]}');
    assert.deepEqual(clean(body), { ab: 'xy', list: ['\uFFFD', 'ok \u{1F600}', { deep: '\uFFFDz' }] });
  });

  it('leaves ordinary text, emoji pairs, combining marks and RTL marks alone', () => {
    const text = 'Ünïcode \u202Eabc\u202C e\u0301 👩‍💻';
    assert.deepEqual(clean({ text }), { text });
  });

  it('walks bodies nested far deeper than the call stack allows', () => {
    let body: unknown = '\u0000end';
    for (let i = 0; i < 200_000; i++) body = [body];
    let value = clean(body);
    for (let i = 0; i < 200_000; i++) value = (value as unknown[])[0];
    assert.equal(value, 'end');
  });
});
