import { failure, postJson, postSse, type ProviderCall } from './http';
import type { ProviderAdapter } from './types';
import { completion, type ReportedUsage } from './usage';
import { asArray, asCount, asObject, asString, dig, joinUrl, parseJson } from './wire';

/**
 * OpenAI-compatible chat completions (openai, deepseek, kimi, groq, mistral, openrouter). The base
 * URL already carries the version segment (`.../v1`), as the official SDK's `baseURL` does.
 */
export const openaiAdapter: ProviderAdapter = async (endpoint, request, options = {}) => {
  const { onDelta, signal } = options;
  const streaming = onDelta !== undefined;
  const system = request.system.trim() ? [{ role: 'system', content: request.system }] : [];
  const call: ProviderCall = {
    endpoint,
    signal,
    url: joinUrl(endpoint.baseUrl, '/chat/completions'),
    headers: { authorization: `Bearer ${endpoint.apiKey}` },
    body: {
      model: request.model,
      messages: [...system, ...request.messages.map(({ role, content }) => ({ role, content }))],
      stream: streaming,
      ...(streaming ? { stream_options: { include_usage: true } } : {}),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      // OpenAI deprecated max_tokens (reasoning models refuse it); the compatible providers only know max_tokens.
      [endpoint.slug === 'openai' ? 'max_completion_tokens' : 'max_tokens']: request.maxTokens,
    },
  };

  if (!streaming) {
    const body = await postJson(call);
    const choices = dig(body, 'choices');
    if (!Array.isArray(choices)) throw failure(call, 'bad_response', `no choices in the answer: ${errorText(body)}`);
    const text = asString(dig(choices[0], 'message', 'content')) ?? '';
    return completion(request, text, usageOf(body));
  }

  let text = '';
  let usage: ReportedUsage = {};
  let finished = false;
  await postSse(call, (event) => {
    if (event.data.trim() === '[DONE]') {
      finished = true;
      return 'stop';
    }
    const chunk = parseJson(event.data);
    if (asObject(chunk) === undefined) throw failure(call, 'bad_response', `unparseable stream chunk: ${event.data}`);
    if (dig(chunk, 'error')) throw failure(call, 'bad_response', `error in stream: ${errorText(chunk)}`);
    const choice = asArray(dig(chunk, 'choices'))[0];
    const delta = asString(dig(choice, 'delta', 'content'));
    if (delta) {
      text += delta;
      onDelta(delta);
    }
    // Some compatible providers end without [DONE]; a finish_reason is as good an end marker.
    if (asString(dig(choice, 'finish_reason'))) finished = true;
    if (asObject(dig(chunk, 'usage'))) usage = usageOf(chunk);
  });
  if (!finished) throw failure(call, 'bad_response', 'stream ended before [DONE]');
  return completion(request, text, usage);
};

function usageOf(body: unknown): ReportedUsage {
  return {
    tokensIn: asCount(dig(body, 'usage', 'prompt_tokens')),
    tokensOut: asCount(dig(body, 'usage', 'completion_tokens')),
  };
}

function errorText(body: unknown): string {
  return asString(dig(body, 'error', 'message')) ?? JSON.stringify(body) ?? '';
}
