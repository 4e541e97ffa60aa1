import type { Request, Response } from 'express';
import { KNOWLEDGE_BODY_LIMIT, SMALL_BODY_LIMIT, storableBody } from '../../src/http/jsonBody';
import type { Endpoint } from '../../src/openapi/registry';
import { serialise, type SweepCase } from './sweepCases';
import type { DocumentValidator } from './sweepDocument';
import { freshIp } from './portal';
import { parseSse } from './sse';

/** Rejected before the route (400/413/415), rejected by the route's schema (422), accepted by it, or refused by Node. */
export type Expectation = 'transport' | 'invalid' | 'valid' | 'node';

export interface Outcome {
  label: string;
  expectation: Expectation;
  status: number;
  problems: string[];
}

/** Where a batch sends its cases, and as whom (the token changes when a per-user limit is spent). */
export interface Target {
  endpoint: Endpoint;
  baseUrl: string;
  path: string;
  token?: string;
  freshToken(): Promise<string>;
}

const TIMEOUT_MS = 20_000;

/** The route's own schema decides whether an input is valid (src/http/validate.ts parses `input ?? {}`). */
export function expectationOf(endpoint: Endpoint, item: SweepCase): Expectation {
  if (item.nodeRefuses) return 'node';
  if (item.transport || overBodyLimit(endpoint, item)) return 'transport';
  const schema = item.query !== undefined ? endpoint.query!.schema : endpoint.body!.schema;
  try {
    const input = item.query !== undefined ? item.parsed : storable(item.parsed);
    return schema.safeParse(input ?? {}).success ? 'valid' : 'invalid';
  } catch {
    // The schema itself throws on this input: whatever the route answers, it must not be a 5xx.
    return 'valid';
  }
}

/** A body as its route sees it: NUL dropped and lone surrogates replaced (src/http/jsonBody.ts), so `a\u0000b` arrives as `ab`. */
function storable(parsed: unknown): unknown {
  const req = { body: parsed } as Request;
  storableBody(req, {} as Response, () => undefined);
  return req.body;
}

/** A body over the route's limit (src/http/jsonBody.ts) is refused with 413 before its schema could see it. */
function overBodyLimit(endpoint: Endpoint, item: SweepCase): boolean {
  const bytes = item.raw ? item.raw.bytes : item.json !== undefined ? serialise(item.json) : undefined;
  if (bytes === undefined) return false;
  return Buffer.byteLength(bytes) > (endpoint.body?.large ? KNOWLEDGE_BODY_LIMIT : SMALL_BODY_LIMIT);
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const rotations = new WeakMap<Target, Promise<void>>();

/** A new identity once per spent one, however many requests in flight saw the 429. */
async function rotate(target: Target, spent: string | undefined): Promise<void> {
  if (target.token !== spent) return;
  let rotation = rotations.get(target);
  if (!rotation) {
    rotation = target.freshToken().then((token) => {
      target.token = token;
      rotations.delete(target);
    });
    rotations.set(target, rotation);
  }
  await rotation;
}

async function send(target: Target, item: SweepCase): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Forwarded-For': freshIp() };
  if (target.token) headers.Authorization = `Bearer ${target.token}`;
  let body: string | Buffer | undefined;
  if (item.raw) {
    body = item.raw.bytes;
    Object.assign(headers, { 'Content-Type': 'application/json' }, item.raw.headers);
  } else if (item.json !== undefined) {
    body = serialise(item.json);
    headers['Content-Type'] = 'application/json';
  }
  const url = `${target.baseUrl}${target.path}${item.query !== undefined ? `?${item.query}` : ''}`;
  const response = await fetch(url, { method: target.endpoint.method.toUpperCase(), headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** Sends one case (again as a fresh user when a per-user limit answers 429) and judges the answer. */
export async function runCase(target: Target, item: SweepCase, validator: DocumentValidator): Promise<Outcome> {
  const expectation = expectationOf(target.endpoint, item);
  let answer: Answer;
  try {
    let used = target.token;
    answer = await send(target, item);
    for (let retry = 0; answer.status === 429 && target.endpoint.limit?.by === 'user' && retry < 3; retry++) {
      await rotate(target, used);
      used = target.token;
      answer = await send(target, item);
    }
  } catch (error) {
    return { label: item.label, expectation, status: 0, problems: [`no answer: ${(error as Error).message}`] };
  }
  return { label: item.label, expectation, status: answer.status, problems: judge(target.endpoint, expectation, answer, validator) };
}

function judge(endpoint: Endpoint, expectation: Expectation, answer: Answer, validator: DocumentValidator): string[] {
  const { status } = answer;
  if (status >= 500) return [`server error ${status}: ${answer.text.slice(0, 300)}`];
  if (expectation === 'node') return status >= 400 && status < 500 ? [] : [`expected Node's 431, got ${status}`];
  const problems: string[] = [];
  const isJson = answer.contentType.startsWith('application/json');
  const body = isJson ? (JSON.parse(answer.text) as Record<string, unknown>) : undefined;
  if (status >= 400) {
    if (!isJson) problems.push(`a ${status} that is not JSON (${answer.contentType}): ${answer.text.slice(0, 100)}`);
    else if (typeof body?.message !== 'string' || !body.message) problems.push(`a ${status} without a message`);
  }
  if (expectation === 'transport' && ![400, 413, 415].includes(status)) problems.push(`expected 400, 413 or 415 before the route, got ${status}`);
  if (expectation === 'invalid') {
    if (status !== 422) problems.push(`the route's schema rejects this input, but the answer was ${status}`);
    else if (!isFieldErrors(body?.errors)) problems.push('a 422 without field errors');
  }
  const operation = validator.operation(endpoint.path, endpoint.method);
  if (!operation.responses[String(status)]) problems.push(`status ${status} is not documented for this endpoint`);
  else if (isJson) problems.push(...validator.problems(endpoint.path, endpoint.method, status, body).map((problem) => `answer not in its documented shape: ${problem}`));
  if (answer.contentType.startsWith('text/event-stream')) problems.push(...streamProblems(answer.text));
  return problems;
}

const isFieldErrors = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).length > 0 && Object.values(value).every((messages) => Array.isArray(messages) && messages.every((m) => typeof m === 'string' && m));

/** A stream must end in `done` or in an `error` the visitor can act on; `internal` is the stream's 5xx. */
function streamProblems(text: string): string[] {
  const events = parseSse(text).events;
  const last = events.at(-1);
  if (!last || !['done', 'error'].includes(last.event)) return [`the stream ended without done or error (${events.map((e) => e.event).join(', ')})`];
  if (last.event === 'error' && (last.data as { code?: string }).code === 'internal') return [`the stream failed: ${JSON.stringify(last.data)}`];
  return [];
}

/** Runs jobs with at most `width` in flight, keeping their order in the results. */
export async function pool<T, R>(items: readonly T[], width: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await job(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
