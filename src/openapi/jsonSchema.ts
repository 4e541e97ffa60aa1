import { z } from 'zod';
import { responseSchemas } from './responses/named';

/** A JSON Schema (2020-12) object as it appears in the document. */
export type JsonSchema = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';

/**
 * Refinements ("a time zone the server knows", the quiet-hours pair, the size of `meta`...) have no
 * JSON Schema keyword; their messages become the field's description, so the document still states
 * the rule. Rules that can be a pattern, a length or an enum are written as one, so clients see them.
 */
function describeRefinements(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const checks = (ctx.zodSchema._zod.def as { checks?: z.core.$ZodCheck[] }).checks ?? [];
  const rules = checks.filter((check) => check._zod.def.check === 'custom').map(ruleOf).filter((rule): rule is string => Boolean(rule));
  if (!rules.length) return;
  ctx.jsonSchema.description = [ctx.jsonSchema.description, ...rules].filter(Boolean).join(' ');
}

function ruleOf(check: z.core.$ZodCheck): string | undefined {
  const error = check._zod.def.error as ((issue: unknown) => unknown) | undefined;
  const said = typeof error === 'function' ? error({}) : undefined;
  if (typeof said === 'string') return said;
  if (said && typeof said === 'object' && 'message' in said && typeof said.message === 'string') return said.message;
  return undefined;
}

function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/** A request body or query as clients send it (`io: input`: before defaults, coercions and transforms). */
export function requestJsonSchema(schema: z.ZodType): JsonSchema {
  return clean(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', override: describeRefinements }) as JsonSchema);
}

/** Every named response shape, each referring to the others through `#/components/schemas/<id>`. */
export function responseComponents(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(responseSchemas, { target: 'draft-2020-12', io: 'output', uri: (id) => `${COMPONENTS}${id}`, override: describeRefinements });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, clean(schema as JsonSchema)]));
}

/** One answer's body: a `$ref` for a named shape, else the shape inline with its named parts as `$ref`s. */
export function responseJsonSchema(schema: z.ZodType): JsonSchema {
  const id = responseSchemas.get(schema)?.id;
  if (id) return { $ref: `${COMPONENTS}${id}` };
  const converted = clean(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', metadata: responseSchemas, override: describeRefinements }) as JsonSchema);
  // The named parts were hoisted into $defs; they live in components already.
  const { $defs: _defs, ...inline } = converted;
  return JSON.parse(JSON.stringify(inline).replaceAll('"#/$defs/', `"${COMPONENTS}`)) as JsonSchema;
}
