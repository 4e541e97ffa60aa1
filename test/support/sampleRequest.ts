import { randomUUID } from 'node:crypto';
import type Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';

type Schema = Record<string, unknown>;

/**
 * Values for the patterns the document uses: a generated client knows no more than the pattern, so
 * each sample is the plainest text that matches it. A new pattern fails the test until it has one.
 */
const PATTERN_SAMPLES: Record<string, string> = {
  '\\S': 'Sample text',
  '^https:\\/\\/': 'https://push.example.com/send/1',
  '^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$': '#2563eb',
  '^[A-Za-z]{3}$': 'usd',
  '^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$': 'en',
  '^([01]\\d|2[0-3]):([0-5]\\d)$': '09:30',
  '^[A-Za-z][A-Za-z0-9_+\\-/]*$': 'UTC',
  '^(?:[A-Za-z][A-Za-z_-]*(?:\\/[A-Za-z0-9_+-]+)+|[A-Z][A-Z0-9+-]{1,9})?$': 'UTC',
  '^(?:[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)?$': '',
  // Any JWT-shaped value: the tenant's signed token replaces it (test/support/sweepTenant.ts).
  '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$': 'e30.e30.c2ln',
  '^v1\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$': 'v1.e30.c2ln',
  '^\\d{1,9}$': '1',
  '^\\d{1,10}$': '1',
  '^\\d+$': '1',
  // The inbox's paging cursor: any 22 base64url characters name a position.
  '^[A-Za-z0-9_-]{22}$': 'AAYnaumiLAAAAAAAAAAwOQ',
};

const FORMAT_SAMPLES: Record<string, () => string> = {
  uuid: () => randomUUID(),
  uri: () => 'https://example.com/',
  email: () => 'someone@example.com',
};

/**
 * Builds request values from the JSON Schemas of an OpenAPI document, the way a generated client
 * would: the document's example where it gives one and the schema accepts it, else the least value
 * the schema allows (a string of its minimum length, the minimum number, the first enum value).
 * `full` sends every documented property; otherwise only the required ones.
 */
export class RequestSampler {
  readonly #compiled = new WeakMap<Schema, ValidateFunction>();

  constructor(private readonly ajv: Ajv2020) {}

  accepts(schema: Schema, value: unknown): boolean {
    let validate = this.#compiled.get(schema);
    if (!validate) this.#compiled.set(schema, (validate = this.ajv.compile(schema)));
    return validate(value);
  }

  sample(schema: Schema, example: unknown, full: boolean): unknown {
    const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (branches) {
      const fitting = branches.find((branch) => example !== undefined && this.accepts(branch, example)) ?? branches.find((branch) => branch.type !== 'null') ?? branches[0]!;
      return this.sample(fitting, example, full);
    }
    if (Array.isArray(schema.allOf)) {
      // Objects in parts (meta and its known fields) are merged; of several patterns, one part's sample satisfies them all.
      const { allOf, ...own } = schema;
      const parts = [own, ...(allOf as Schema[])].map((part) => this.sample(part, example, full));
      const merged = parts.every((part) => typeof part === 'object' && part !== null && !Array.isArray(part)) ? Object.assign({}, ...parts) : undefined;
      return [merged, ...parts].find((candidate) => candidate !== undefined && this.accepts(schema, candidate)) ?? parts[0];
    }
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return schema.enum.includes(example) ? example : schema.enum[0];
    // A part of an allOf may carry only its pattern.
    const type = Array.isArray(schema.type) ? (schema.type as string[]).find((name) => name !== 'null') : ((schema.type as string | undefined) ?? ('pattern' in schema ? 'string' : undefined));
    switch (type) {
      case 'object':
        return this.object(schema, example, full);
      case 'array': {
        const items = (schema.items ?? {}) as Schema;
        if (Array.isArray(example) && this.accepts(schema, example)) return example.map((item) => this.sample(items, item, full));
        return Array.from({ length: Number(schema.minItems ?? 0) }, () => this.sample(items, undefined, full));
      }
      case 'string':
        return typeof example === 'string' && this.accepts(schema, example) ? example : this.string(schema);
      case 'integer':
      case 'number':
        return typeof example === 'number' && this.accepts(schema, example) ? example : this.number(schema);
      case 'boolean':
        return typeof example === 'boolean' ? example : false;
      case 'null':
        return null;
      default:
        return example ?? 'Sample text';
    }
  }

  private object(schema: Schema, example: unknown, full: boolean): Record<string, unknown> {
    const given = typeof example === 'object' && example !== null && !Array.isArray(example) ? (example as Record<string, unknown>) : {};
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (!Object.keys(properties).length) return this.accepts(schema, given) ? given : {};
    const required = new Set((schema.required ?? []) as string[]);
    const names = Object.keys(properties).filter((name) => required.has(name) || full);
    return Object.fromEntries(names.map((name) => [name, this.sample(properties[name]!, given[name], full)]));
  }

  private string(schema: Schema): string {
    // A format's own pattern (zod writes one beside `format: uuid`) is satisfied by the format's sample.
    if (typeof schema.format === 'string' && FORMAT_SAMPLES[schema.format]) return FORMAT_SAMPLES[schema.format]!();
    if (typeof schema.pattern === 'string') {
      const sample = PATTERN_SAMPLES[schema.pattern];
      if (sample === undefined) throw new Error(`no sample for the pattern ${schema.pattern}: add one to test/support/sampleRequest.ts`);
      return sample;
    }
    return 'x'.repeat(Number(schema.minLength ?? 0));
  }

  private number(schema: Schema): number {
    if (typeof schema.minimum === 'number') return schema.minimum;
    if (typeof schema.exclusiveMinimum === 'number') return schema.type === 'integer' ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum + 0.5;
    return 0;
  }
}
