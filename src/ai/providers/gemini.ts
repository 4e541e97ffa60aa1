import type { ProviderFailure } from './errors';
import { failure, postJson, postSse, type ProviderCall } from './http';
import type { ChatRequest, ProviderAdapter, ProviderEndpoint } from './types';
import { completion, type ReportedUsage } from './usage';
import { asArray, asCount, asObject, asString, dig, joinUrl, parseJson } from './wire';

/** Gemini (generativelanguage API). The base URL has no version segment: the path carries `/v1beta`. */
export const geminiAdapter: ProviderAdapter = async (endpoint, request, options = {}) => {
  const { onDelta, signal } = options;
  const streaming = onDelta !== undefined;
  const call = callFor(endpoint, request, streaming, signal);

  if (!streaming) {
    const body = await postJson(call);
    if (dig(body, 'error')) throw failure(call, 'bad_response', `error in the answer: ${JSON.stringify(body)}`);
    return completion(request, textOf(body), usageOf(body) ?? {});
  }

  let text = '';
  let usage: ReportedUsage = {};
  let finished = false;
  await postSse(call, (event) => {
    const chunk = parseJson(event.data);
    if (asObject(chunk) === undefined) throw failure(call, 'bad_response', `unparseable stream chunk: ${event.data}`);
    if (dig(chunk, 'error')) throw failure(call, 'bad_response', `error in stream: ${JSON.stringify(chunk)}`);
    const delta = textOf(chunk);
    if (delta) {
      text += delta;
      onDelta(delta);
    }
    // Every chunk repeats the running usage; the last one is the total.
    usage = usageOf(chunk) ?? usage;
    // No end marker in Gemini streams: the last candidate carries a finishReason (a blocked prompt has none).
    if (asString(dig(asArray(dig(chunk, 'candidates'))[0], 'finishReason')) || dig(chunk, 'promptFeedback', 'blockReason')) {
      finished = true;
    }
  });
  if (!finished) throw failure(call, 'bad_response', 'stream ended before a finishReason');
  return completion(request, text, usage);
};

function callFor(endpoint: ProviderEndpoint, request: ChatRequest, streaming: boolean, signal: AbortSignal | undefined): ProviderCall {
  const method = streaming ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return {
    endpoint,
    signal,
    url: joinUrl(endpoint.baseUrl, `/v1beta/models/${encodeURIComponent(request.model)}:${method}`),
    headers: { 'x-goog-api-key': endpoint.apiKey },
    body: {
      ...(request.system.trim() ? { systemInstruction: { parts: [{ text: request.system }] } } : {}),
      contents: request.messages.map(({ role, content }) => ({
        role: role === 'assistant' ? 'model' : 'user',
        parts: [{ text: content }],
      })),
      generationConfig: {
        maxOutputTokens: request.maxTokens,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      },
    },
    classifyError,
  };
}

/** Text of the first candidate; thought summaries (thinking models) are not part of the answer. */
function textOf(response: unknown): string {
  const parts = asArray(dig(asArray(dig(response, 'candidates'))[0], 'content', 'parts'));
  return parts
    .filter((part) => dig(part, 'thought') !== true)
    .map((part) => asString(dig(part, 'text')) ?? '')
    .join('');
}

/** Thinking tokens are billed as output, so they count with the candidates' tokens. */
function usageOf(response: unknown): ReportedUsage | undefined {
  const metadata = asObject(dig(response, 'usageMetadata'));
  if (!metadata) return undefined;
  const candidates = asCount(metadata.candidatesTokenCount);
  const thoughts = asCount(metadata.thoughtsTokenCount) ?? 0;
  return {
    tokensIn: asCount(metadata.promptTokenCount),
    tokensOut: candidates === undefined ? undefined : candidates + thoughts,
  };
}

/** Gemini answers a wrong API key with 400 INVALID_ARGUMENT and reason API_KEY_INVALID, not 401. */
function classifyError(status: number, body: unknown): ProviderFailure | undefined {
  const first = Array.isArray(body) ? (body[0] as unknown) : body;
  const reasons = asArray(dig(first, 'error', 'details')).map((detail) => dig(detail, 'reason'));
  return status === 400 && reasons.includes('API_KEY_INVALID') ? 'auth' : undefined;
}
