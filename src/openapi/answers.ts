import type { Answer, Endpoint, RouteLimit } from './registry';
import { pathParams } from './registry';
import { errorBody, validationErrorBody } from './responses/common';

const PER = { 60: 'minute', 3600: 'hour' } as Record<number, string>;

/** "30 requests per minute per signed-in user"; `sharedWith` names the other routes that spend the same budget. */
export function limitText(limit: RouteLimit, sharedWith: string[] = []): string {
  const window = PER[limit.seconds] ?? `${limit.seconds} seconds`;
  const shared = sharedWith.length ? ` (one budget shared with ${sharedWith.join(', ')})` : '';
  return `${limit.points} requests per ${window} per ${limit.by === 'ip' ? 'IP address' : 'signed-in user'}${shared}`;
}

/** The implied answers that several causes can give at once: each cause's words are kept. */
const JOINED = new Set([400, 403, 429, 503]);

/**
 * The endpoint's answers: its own, plus the errors its shape implies (a token: 401/403; a role
 * ability: 403; an id in the path: 400/404; a body: 400/413/415; a body or query: 422; a limit: 429;
 * the database behind it: 503).
 */
export function answersOf(endpoint: Endpoint, sharedWith: string[] = []): Map<number, Answer> {
  const implied = new Map<number, string>();
  const imply = (status: number, description: string) => implied.set(status, [implied.get(status), description].filter(Boolean).join(' '));
  if (endpoint.auth !== 'none') {
    implied.set(401, 'No valid token: missing, malformed, unknown, expired or revoked. Checked before anything else, the body included.');
    const role = endpoint.ability ? `, or the user's role lacks \`${endpoint.ability}\`` : '';
    implied.set(403, `A token of another surface, a suspended account or workspace${role}.`);
  }
  if (pathParams(endpoint.path).length) {
    imply(400, 'A path parameter is not valid percent-encoding (such as `%FF`).');
    implied.set(404, 'Nothing with that id here: missing and another workspace’s records answer the same.');
  }
  if (endpoint.body) {
    imply(400, 'The body is not valid JSON.');
    implied.set(413, `The body is over ${endpoint.body.large ? '8 MB' : '96 KB'}.`);
    implied.set(415, 'The body encoding or charset is not supported.');
  }
  if (endpoint.body || endpoint.query) implied.set(422, 'Validation failed: `errors` names each failing field.');
  if (endpoint.limit) implied.set(429, `More than ${limitText(endpoint.limit, sharedWith)}: \`Retry-After\` says how many seconds to wait.`);
  // Every token is checked, and every widget route reads its chatbot, in PostgreSQL.
  if (endpoint.auth !== 'none' || endpoint.surface === 'widget') {
    implied.set(503, 'The database cannot be reached (`database_unavailable`): the request did not complete; `Retry-After` says when to try again.');
  }

  const answers = new Map<number, Answer>();
  for (const [status, description] of implied) {
    if (endpoint.never?.includes(status)) continue;
    answers.set(status, { description, json: status === 422 && !(422 in endpoint.responses) ? validationErrorBody : errorBody });
  }
  for (const [key, own] of Object.entries(endpoint.responses)) {
    const status = Number(key);
    const answer: Answer = typeof own === 'string' ? { description: own, json: errorBody } : own;
    const before = answers.get(status);
    // A route's own words replace the implied ones, except where both causes apply (role and rule; limit and allowance; database and actor moves).
    const joined = before && JOINED.has(status) ? `${before.description} ${answer.description}` : answer.description;
    answers.set(status, { ...answer, description: joined });
  }
  return new Map([...answers].sort(([a], [b]) => a - b));
}
