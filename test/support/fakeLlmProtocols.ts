/**
 * What the fake LLM server says, per wire protocol: request reading, whole answers, SSE frames and
 * error bodies shaped like the real providers' (OpenAI chat completions, Anthropic messages, Gemini).
 */

export type ProtocolName = 'openai' | 'anthropic' | 'gemini';

/** The prompt as the fake understood it from the protocol's own fields. */
export interface Prompt {
  model: string;
  system: string;
  messages: { role: string; content: string }[];
}

/** One answer to give: the pieces are the deltas, in order; their concatenation is the text. */
export interface Answer {
  id: string;
  model: string;
  pieces: string[];
  /** `null`: report no usage at all. */
  usage: { in: number; out: number } | null;
  /** OpenAI sends the usage chunk only when asked with stream_options.include_usage. */
  includeUsage: boolean;
  /** Gemini only: the candidate is blocked by safety filters and carries no content. */
  safetyBlock: boolean;
}

export interface StreamFrames {
  opening: string[];
  deltas: string[];
  closing: string[];
}

export interface Protocol {
  name: ProtocolName;
  prompt(body: unknown, model: string | undefined): Prompt;
  whole(answer: Answer): unknown;
  stream(answer: Answer): StreamFrames;
  errorBody(status: number, message: string, reason?: string): unknown;
  /** An error reported inside an already started stream. */
  streamError(type: string, message: string): string;
}

type Loose = Record<string, unknown>;

const loose = (value: unknown): Loose => (typeof value === 'object' && value !== null ? (value as Loose) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const json = (value: unknown): string => JSON.stringify(value);
const created = (): number => Math.floor(Date.now() / 1000);

/** `data:` only frames end with a blank line; Gemini separates them with CRLF pairs, as the real API does. */
const data = (value: unknown, separator = '\n\n'): string => `data: ${json(value)}${separator}`;
const named = (event: string, value: unknown): string => `event: ${event}\n${data(value)}`;

/** Anthropic content is a string or an array of text blocks; the fake accepts both like the API does. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((block) => text(loose(block).text))
    .join('');
}

export const openai: Protocol = {
  name: 'openai',
  prompt(body) {
    const messages = list(loose(body).messages).map((m) => ({ role: text(loose(m).role), content: contentText(loose(m).content) }));
    return {
      model: text(loose(body).model),
      system: messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content).join('\n'),
      messages: messages.filter((m) => m.role !== 'system' && m.role !== 'developer'),
    };
  },
  whole(answer) {
    return {
      id: answer.id,
      object: 'chat.completion',
      created: created(),
      model: answer.model,
      choices: [{ index: 0, message: { role: 'assistant', content: answer.pieces.join(''), refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: answer.usage && { prompt_tokens: answer.usage.in, completion_tokens: answer.usage.out, total_tokens: answer.usage.in + answer.usage.out },
      system_fingerprint: 'fp_fake',
    };
  },
  stream(answer) {
    const chunk = (choices: unknown[], usage: unknown = null) =>
      data({ id: answer.id, object: 'chat.completion.chunk', created: created(), model: answer.model, system_fingerprint: 'fp_fake', choices, usage });
    const choice = (delta: unknown, finishReason: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finishReason });
    const usage = answer.usage;
    return {
      opening: [chunk([choice({ role: 'assistant', content: '', refusal: null })])],
      deltas: answer.pieces.map((piece) => chunk([choice({ content: piece })])),
      closing: [
        chunk([choice({}, 'stop')]),
        ...(answer.includeUsage && usage
          ? [chunk([], { prompt_tokens: usage.in, completion_tokens: usage.out, total_tokens: usage.in + usage.out })]
          : []),
        'data: [DONE]\n\n',
      ],
    };
  },
  errorBody(status, message) {
    const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
    return { error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : null } };
  },
  streamError(type, message) {
    return data({ error: { message, type, param: null, code: null } });
  },
};

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export const anthropic: Protocol = {
  name: 'anthropic',
  prompt(body) {
    return {
      model: text(loose(body).model),
      system: contentText(loose(body).system),
      messages: list(loose(body).messages).map((m) => ({ role: text(loose(m).role), content: contentText(loose(m).content) })),
    };
  },
  whole(answer) {
    return {
      id: answer.id,
      type: 'message',
      role: 'assistant',
      model: answer.model,
      content: [{ type: 'text', text: answer.pieces.join('') }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      ...(answer.usage ? { usage: { input_tokens: answer.usage.in, output_tokens: answer.usage.out } } : {}),
    };
  },
  stream(answer) {
    const message = { id: answer.id, type: 'message', role: 'assistant', model: answer.model, content: [], stop_reason: null, stop_sequence: null };
    return {
      opening: [
        named('message_start', {
          type: 'message_start',
          message: { ...message, ...(answer.usage ? { usage: { input_tokens: answer.usage.in, output_tokens: 1 } } : {}) },
        }),
        named('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        named('ping', { type: 'ping' }),
      ],
      deltas: answer.pieces.map((piece) =>
        named('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }),
      ),
      closing: [
        named('content_block_stop', { type: 'content_block_stop', index: 0 }),
        named('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          ...(answer.usage ? { usage: { output_tokens: answer.usage.out } } : {}),
        }),
        named('message_stop', { type: 'message_stop' }),
      ],
    };
  },
  errorBody(status, message) {
    return { type: 'error', error: { type: ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
  },
  streamError(type, message) {
    return named('error', { type: 'error', error: { type, message } });
  },
};

const GOOGLE_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export const gemini: Protocol = {
  name: 'gemini',
  prompt(body, model) {
    const parts = (value: unknown) => list(loose(value).parts).map((part) => text(loose(part).text)).join('');
    return {
      model: model ?? '',
      system: parts(loose(body).systemInstruction),
      messages: list(loose(body).contents).map((c) => ({ role: text(loose(c).role), content: parts(c) })),
    };
  },
  whole(answer) {
    return {
      candidates: [candidate(answer, answer.pieces.join(''), true)],
      ...usageMetadata(answer, true),
      modelVersion: answer.model,
      responseId: answer.id,
    };
  },
  stream(answer) {
    const pieces = answer.pieces.length > 0 ? answer.pieces : [''];
    const response = (piece: string, last: boolean) => ({
      candidates: [candidate(answer, piece, last)],
      ...usageMetadata(answer, last),
      modelVersion: answer.model,
      responseId: answer.id,
    });
    return {
      opening: [],
      deltas: pieces.map((piece, index) => data(response(piece, index === pieces.length - 1), '\r\n\r\n')),
      closing: [],
    };
  },
  errorBody(status, message, reason) {
    const details = reason ? [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' }] : undefined;
    return { error: { code: status, message, status: GOOGLE_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'), details } };
  },
  streamError(_type, message) {
    return data({ error: { code: 500, message, status: 'INTERNAL' } }, '\r\n\r\n');
  },
};

function candidate(answer: Answer, piece: string, last: boolean): unknown {
  if (answer.safetyBlock) {
    return { finishReason: 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] };
  }
  return { content: { parts: [{ text: piece }], role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 };
}

/** Running chunks carry the prompt count only; the last one has the totals, as the real stream does. */
function usageMetadata(answer: Answer, last: boolean): { usageMetadata?: unknown } {
  if (!answer.usage) return {};
  const { in: prompt, out } = answer.usage;
  return {
    usageMetadata: last
      ? { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out }
      : { promptTokenCount: prompt, totalTokenCount: prompt },
  };
}
