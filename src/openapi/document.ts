import { answersOf, limitText } from './answers';
import { requestJsonSchema, responseComponents, responseJsonSchema, type JsonSchema } from './jsonSchema';
import { PATH_PARAMS } from './params';
import { endpointKey, pathParams, type Answer, type Auth, type Endpoint, type Surface } from './registry';
import { errorBody } from './responses/common';
import { packageVersion } from '../version';

const SURFACES: Record<Surface, { name: string; description: string }> = {
  v1: { name: 'REST API v1', description: 'The integration API (`api` tokens, created by the operator).' },
  portal: { name: 'Portal API', description: 'The API behind white-label portals (`portal` tokens from POST /api/portal/login).' },
  agent: { name: 'Agent app API', description: 'The API behind the agent apps and the web inbox (`agent` tokens from POST /api/agent/login).' },
  widget: { name: 'Widget', description: 'Public endpoints the embed script calls from visitors’ browsers; the chatbot public key in the path is the only credential. Every answer carries `Access-Control-Allow-Origin: *`.' },
  ops: { name: 'Operations', description: 'Health, readiness, metrics, this document and the files browsers load.' },
};

const SCHEMES: Record<Exclude<Auth, 'none'>, string> = { api: 'apiToken', portal: 'portalToken', agent: 'agentToken' };

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'The route limit.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
};

/** The OpenAPI 3.1 document of every surface, built from the endpoints' declarations (the schemas the routes parse with). */
export function buildOpenApiDocument(serverUrl: string, endpoints: readonly Endpoint[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) (paths[endpoint.path] ??= {})[endpoint.method] = operationOf(endpoint, budgetSharers(endpoint, endpoints));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Parley',
      version: packageVersion(),
      summary: 'Self-hostable AI chatbots for many workspaces, with human handoff.',
      description:
        'Four HTTP surfaces (REST API v1, portal, agent app, widget) plus operations endpoints. Every rejection is JSON `{message, code}`, with `errors` (field -> messages) on 422. Route limits send `X-RateLimit-Limit` and `X-RateLimit-Remaining`, and `Retry-After` on 429. Generated from the zod schemas the routes validate with (docs/openapi.md).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    tags: Object.values(SURFACES),
    paths,
    components: {
      securitySchemes: Object.fromEntries(
        Object.entries(SCHEMES).map(([ability, name]) => [
          name,
          { type: 'http', scheme: 'bearer', description: `A token with the \`${ability}\` ability: \`<id>|<40 characters>\`, valid 30 days. A token of another ability gets 403.` },
        ]),
      ),
      schemas: responseComponents(),
    },
  };
}

/** The other endpoints whose limit has the same name: they spend one budget. */
function budgetSharers(endpoint: Endpoint, endpoints: readonly Endpoint[]): string[] {
  const name = endpoint.limit?.name;
  return name ? endpoints.filter((other) => other !== endpoint && other.limit?.name === name).map(endpointKey) : [];
}

function operationOf(endpoint: Endpoint, sharedWith: string[]) {
  const notes = [endpoint.description, endpoint.ability && `Role ability: \`${endpoint.ability}\`.`, endpoint.limit && `Rate limit: ${limitText(endpoint.limit, sharedWith)}.`];
  return {
    operationId: operationId(endpoint),
    tags: [SURFACES[endpoint.surface].name],
    summary: endpoint.summary,
    ...(notes.some(Boolean) && { description: notes.filter(Boolean).join('\n\n') }),
    security: endpoint.auth === 'none' ? [] : [{ [SCHEMES[endpoint.auth]]: [] }],
    ...(endpoint.ability && { 'x-role-ability': endpoint.ability }),
    ...(endpoint.limit && { 'x-rate-limit': rateLimitExtension(endpoint.limit, sharedWith) }),
    parameters: [...pathParameters(endpoint), ...queryParameters(endpoint), ...headerParameters(endpoint)],
    ...(endpoint.body && { requestBody: requestBodyOf(endpoint.body) }),
    responses: Object.fromEntries([...answersOf(endpoint, sharedWith)].map(([status, answer]) => [String(status), responseOf(answer, status, endpoint)])),
  };
}

/** The limit as clients read it: its terms, and the routes that share its budget (the counters' name is the server's own). */
function rateLimitExtension({ name: _counters, ...terms }: NonNullable<Endpoint['limit']>, sharedWith: string[]) {
  return { ...terms, ...(sharedWith.length && { sharedWith }) };
}

/** `post /api/agent/conversations/{conversation}/reply` -> `postAgentConversationsConversationReply` */
function operationId(endpoint: Endpoint): string {
  const words = endpoint.path.split(/[^A-Za-z0-9]+/).filter((word) => word && word !== 'api');
  return endpoint.method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

function pathParameters(endpoint: Endpoint) {
  return pathParams(endpoint.path).map((name) => {
    const schema = endpoint.params?.[name] ?? PATH_PARAMS[name];
    if (!schema) throw new Error(`${endpoint.path}: no schema for the path parameter {${name}} (add it to src/openapi/params.ts)`);
    const json = requestJsonSchema(schema);
    const { description, ...rest } = json;
    return { name, in: 'path', required: true, ...(description !== undefined && { description }), schema: rest };
  });
}

/**
 * A query field a header stands for (the widget's visitor id) is documented as the header, required,
 * and the field as deprecated: a header stays out of URLs and logs, and a client that sends both must
 * send the same value twice.
 */
function queryParameters(endpoint: Endpoint) {
  if (!endpoint.query) return [];
  const json = requestJsonSchema(endpoint.query.schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const replaced = new Set((endpoint.headers ?? []).map((header) => header.replaces));
  const required = new Set((json.required ?? []) as string[]);
  const example = endpoint.query.examples[0] ?? {};
  return Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: 'query',
      required: required.has(name) && !replaced.has(name),
      ...(replaced.has(name) && { deprecated: true }),
      ...(description !== undefined && { description }),
      schema: rest,
      ...(example[name] !== undefined && { example: typed(example[name], rest) }),
    };
  });
}

function headerParameters(endpoint: Endpoint) {
  const required = new Set(endpoint.query ? ((requestJsonSchema(endpoint.query.schema).required ?? []) as string[]) : []);
  const example = endpoint.query?.examples[0] ?? {};
  return (endpoint.headers ?? []).map((header) => {
    const { description: _own, ...schema } = requestJsonSchema(header.schema);
    const stands = header.replaces;
    return {
      name: header.name,
      in: 'header',
      required: stands !== undefined && required.has(stands),
      description: header.description,
      schema,
      ...(stands !== undefined && example[stands] !== undefined && { example: example[stands] }),
    };
  });
}

/** A query example as the value its schema describes (`"20"` is the integer 20 on the wire). */
const typed = (value: string, schema: JsonSchema) => (schema.type === 'integer' || schema.type === 'number' ? Number(value) : value);

function requestBodyOf(body: NonNullable<Endpoint['body']>) {
  const schema = requestJsonSchema(body.schema);
  const examples = Object.fromEntries(body.examples.map((value, index) => [`example${index + 1}`, { value }]));
  return { required: Array.isArray(schema.required) && schema.required.length > 0, content: { 'application/json': { schema, examples } } };
}

function responseOf(answer: Answer, status: number, endpoint: Endpoint) {
  const headers = {
    ...(endpoint.limit && status < 500 && RATE_HEADERS),
    ...((status === 429 || (status === 503 && answer.json === errorBody)) && { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } }),
  };
  const content = answer.json
    ? { 'application/json': { schema: responseJsonSchema(answer.json) } }
    : answer.media
      ? { [answer.media]: { schema: { type: 'string' }, ...(answer.events && { 'x-events': eventSchemas(answer.events) }) } }
      : undefined;
  return { description: answer.description, ...(Object.keys(headers).length && { headers }), ...(content && { content }) };
}

/** Server-sent events: the JSON of each event's `data:` line, by event name (OpenAPI 3.1 has no keyword for it). */
function eventSchemas(events: NonNullable<Answer['events']>) {
  return Object.fromEntries(Object.entries(events).map(([name, schema]) => [name, responseJsonSchema(schema)]));
}
