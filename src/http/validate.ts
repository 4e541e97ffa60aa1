import { z } from 'zod';
import { validationFailed } from '../errors';

type Issue = z.core.$ZodIssue;

/**
 * Parses input with a zod schema and returns the typed result, or throws a 422 whose `errors` object is
 * keyed by field (dot paths for nested ones) with readable, Laravel-style messages.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  if (result.success) return result.data;
  // A Map: an unknown field may be named `constructor` or `__proto__`.
  const errors = new Map<string, string[]>();
  const add = (field: string, message: string) => errors.set(field, [...(errors.get(field) ?? []), message]);
  for (const issue of result.error.issues) {
    const field = issue.path.length ? issue.path.join('.') : 'body';
    // A strict object names each field it does not know, under that field.
    if (issue.code !== 'unrecognized_keys') add(field, describe(issue, field));
    else for (const key of issue.keys.map((name) => [...issue.path, name].join('.'))) add(key, `The ${key} field is not allowed.`);
  }
  throw validationFailed(Object.fromEntries(errors));
}

/**
 * Text that is not only whitespace: `.regex(NOT_BLANK, message)`. A pattern rather than a refinement,
 * so the OpenAPI document states the rule (`\S` and `trim()` agree on what whitespace is).
 */
export const NOT_BLANK = /\S/;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

function describe(issue: Issue, field: string): string {
  const label = `The ${(field.split('.').pop() ?? field).replaceAll('_', ' ')}`;
  if ((issue.input === undefined || issue.input === null) && issue.code !== 'custom') return `${label} field is required.`;
  switch (issue.code) {
    case 'invalid_type':
      return `${label} field must be ${TYPE_NAMES[issue.expected] ?? issue.expected}.`;
    case 'too_big':
      if (issue.origin === 'string') return `${label} field must not be greater than ${issue.maximum} characters.`;
      if (issue.origin === 'array') return `${label} field must not have more than ${issue.maximum} items.`;
      return `${label} field must not be greater than ${issue.maximum}.`;
    case 'too_small':
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1 ? `${label} field is required.` : `${label} field must be at least ${issue.minimum} characters.`;
      }
      if (issue.origin === 'array') return `${label} field must have at least ${issue.minimum} items.`;
      return `${label} field must be at least ${issue.minimum}.`;
    case 'invalid_format':
      if (issue.format === 'regex' && hasOwnMessage(issue)) return issue.message;
      if (issue.format === 'uuid') return `${label} field must be a valid UUID.`;
      if (issue.format === 'url') return `${label} field must be a valid URL.`;
      if (issue.format === 'email') return `${label} field must be a valid email address.`;
      return `${label} field format is invalid.`;
    case 'invalid_value':
      return `The selected ${field.split('.').pop()?.replaceAll('_', ' ')} is invalid.`;
    case 'custom':
      return issue.message;
    default:
      return `${label} field is invalid.`;
  }
}

/** Whether the check that failed gave its own message (`.regex(pattern, 'The ...')`) rather than zod's default wording. */
function hasOwnMessage(issue: Issue): boolean {
  const fallback = z.config().localeError?.(issue as z.core.$ZodRawIssue);
  return issue.message !== (typeof fallback === 'string' ? fallback : fallback?.message);
}
