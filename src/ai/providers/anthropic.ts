import type { ProviderFailure } from './errors';
import { failure, postJson, postSse, type ProviderCall } from './http';
import type { ProviderAdapter } from './types';
import { completion } from './usage';
import { asCount, asObject, asString, dig, joinUrl, parseJson } from './wire';

/** The Messages API version this adapter's wire format follows. */
const ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic Messages API (claude). The base URL has no version segment: the path carries `/v1`. */
export const anthropicAdapter: ProviderAdapter = async (endpoint, request, options = {}) => {
  const { onDelta, signal } = options;
  const streaming = onDelta !== undefined;
  const call: ProviderCall = {
    endpoint,
    signal,
    url: joinUrl(endpoint.baseUrl, '/v1/messages'),
    headers: { 'x-api-key': endpoint.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
    body: {
      model: request.model,
      // No system prompt is said by leaving the field out; an empty text block risks a 400.
      ...(request.system.trim() ? { system: request.system } : {}),
      messages: request.messages.map(({ role, content }) => ({ role, content })),
      max_tokens: request.maxTokens,
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      stream: streaming,
    },
  };

  if (!streaming) {
    const body = await postJson(call);
    const content = dig(body, 'content');
    if (!Array.isArray(content)) throw failure(call, 'bad_response', `no content in the answer: ${JSON.stringify(body)}`);
    const text = content
      .filter((block) => dig(block, 'type') === 'text')
      .map((block) => asString(dig(block, 'text')) ?? '')
      .join('');
    return completion(request, text, {
      tokensIn: asCount(dig(body, 'usage', 'input_tokens')),
      tokensOut: asCount(dig(body, 'usage', 'output_tokens')),
    });
  }

  let text = '';
  let tokensIn: number | undefined;
  let tokensOut: number | undefined;
  let finished = false;
  await postSse(call, (event) => {
    const data = parseJson(event.data);
    if (asObject(data) === undefined) throw failure(call, 'bad_response', `unparseable stream event: ${event.data}`);
    switch (asString(dig(data, 'type')) ?? event.event) {
      case 'message_start':
        tokensIn = asCount(dig(data, 'message', 'usage', 'input_tokens'));
        return;
      case 'content_block_delta': {
        const delta = dig(data, 'delta', 'type') === 'text_delta' ? asString(dig(data, 'delta', 'text')) : undefined;
        if (delta) {
          text += delta;
          onDelta(delta);
        }
        return;
      }
      case 'message_delta':
        // Cumulative count: the last message_delta has the total.
        tokensOut = asCount(dig(data, 'usage', 'output_tokens')) ?? tokensOut;
        return;
      case 'message_stop':
        finished = true;
        return 'stop';
      case 'error':
        throw failure(call, streamErrorKind(dig(data, 'error', 'type')), `error event: ${describeError(data)}`);
      default:
        // ping, content_block_start/stop, and event types added later (Anthropic's versioning allows them).
        return;
    }
  });
  if (!finished) throw failure(call, 'bad_response', 'stream ended before message_stop');
  return completion(request, text, { tokensIn, tokensOut });
};

/** overloaded_error and api_error are Anthropic's own trouble (a 529 / 500 outside a stream). */
function streamErrorKind(type: unknown): ProviderFailure {
  return type === 'overloaded_error' || type === 'api_error' ? 'server' : 'bad_response';
}

function describeError(data: unknown): string {
  const type = asString(dig(data, 'error', 'type')) ?? 'unknown';
  return `${type}: ${asString(dig(data, 'error', 'message')) ?? ''}`;
}
