import { strict as assert } from 'node:assert';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import { NOT_BLANK, parse } from '../../src/http/validate';

const schema = z.object({
  title: z.string().max(5),
  message: z.string().max(4000).regex(NOT_BLANK, 'The message must not be only whitespace.'),
  count: z.number().int().min(1),
  kind: z.enum(['text', 'qa']),
  nested: z.object({ url: z.url() }).optional(),
});

function errorsOf(input: unknown): Record<string, string[]> {
  try {
    parse(schema, input);
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.status, 422);
    return error.details.errors ?? {};
  }
  assert.fail('expected a validation error');
}

describe('validate: zod issues as Laravel-style errors', () => {
  it('returns typed data when valid', () => {
    assert.deepEqual(parse(schema, { title: 'a', message: 'hi', count: 2, kind: 'qa' }), { title: 'a', message: 'hi', count: 2, kind: 'qa' });
  });

  it('names every failing field with readable messages', () => {
    assert.deepEqual(errorsOf({ title: 'toolong', message: '   ', count: 0, kind: 'pdf', nested: { url: 'nope' } }), {
      title: ['The title field must not be greater than 5 characters.'],
      message: ['The message must not be only whitespace.'],
      count: ['The count field must be at least 1.'],
      kind: ['The selected kind is invalid.'],
      'nested.url': ['The url field must be a valid URL.'],
    });
  });

  it('says required for missing fields and names the wrong type', () => {
    assert.deepEqual(errorsOf({ title: 5, count: 1.5 }), {
      title: ['The title field must be a string.'],
      message: ['The message field is required.'],
      count: ['The count field must be an integer.'],
      kind: ['The kind field is required.'],
    });
  });

  it('reports a body that is not an object under "body"', () => {
    assert.deepEqual(Object.keys(errorsOf([1, 2])), ['body']);
  });

  it('names each field a strict object does not know, nested ones by their path', () => {
    const strict = z.strictObject({ name: z.string(), inner: z.strictObject({ a: z.int() }).optional() });
    try {
      parse(strict, { name: 'x', colour: 'red', inner: { a: 1, b: 2 } });
      assert.fail('expected a validation error');
    } catch (error) {
      assert.ok(error instanceof AppError);
      assert.deepEqual(error.details.errors, { 'inner.b': ['The inner.b field is not allowed.'], colour: ['The colour field is not allowed.'] });
    }
  });

  it('uses the first error as the message and counts the rest', () => {
    try {
      parse(schema, {});
    } catch (error) {
      assert.ok(error instanceof AppError);
      assert.equal(error.message, 'The title field is required. (and 3 more errors)');
      return;
    }
    assert.fail('expected a validation error');
  });

  it("answers a pattern's own message, and a plain one for a pattern without a message", () => {
    const codes = z.object({ own: z.string().regex(/^\d+$/, 'The own code must be digits.'), plain: z.string().regex(/^\d+$/) });
    try {
      parse(codes, { own: 'x', plain: 'x' });
    } catch (error) {
      assert.ok(error instanceof AppError);
      assert.deepEqual(error.details.errors, { own: ['The own code must be digits.'], plain: ['The plain field format is invalid.'] });
      return;
    }
    assert.fail('expected a validation error');
  });
});
