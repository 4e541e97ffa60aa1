import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { ANSWER_TIMEOUT_MS } from '../../actors/conversation/behaviour';
import type { VisitorChunk, VisitorMessageInput, VisitorMessageReply } from '../../actors/conversation/protocol';
import type { ActorStream, StreamChunk } from '../../actors/runtime/stream';
import { widgetChatbotRead } from '../../domain/chatbots/cachedChatbots';
import { prechatOf } from '../../domain/chatbots/prechat';
import { verifyIdentity } from '../../domain/conversations/identity';
import { inOpenConversation } from '../../domain/conversations/openConversation';
import { AppError, validationFailed } from '../../errors';
import { presentConversationView } from '../../presenters/widget';
import { SseStream } from '../../http/sse';
import type { OpenCount } from '../../ops/metrics';
import { streamEvents } from '../../openapi/responses/widget';
import { endpoint } from '../endpoint';
import { BLOCKED, NOT_THEIRS, perIp, SAMPLE_VISITOR, streamBody } from './schemas';

/** The widget stream's `error` event codes (docs/api.md "Widget"); anything else a client sees as `internal`. */
const SSE_ERROR_CODES = new Set(['provider_unreachable', 'limit_reached', 'handoff']);

export const streamEndpoints = [
  endpoint({
    surface: 'widget',
    auth: 'none',
    method: 'post',
    path: '/widget/{key}/stream',
    summary: 'Send a visitor message and stream the reply (server-sent events)',
    description:
      'Events: `meta` once the message is stored, any number of `delta`, `recommendations` when the store has matching products, then `done` or `error`. A rejection before the stream starts is an ordinary JSON error. `client_id` makes a retry safe.',
    limit: perIp('widget-stream', 20),
    body: {
      schema: streamBody,
      examples: [
        { visitor_id: SAMPLE_VISITOR, message: 'Do you ship to Canada?' },
        { visitor_id: SAMPLE_VISITOR, message: 'And to Mexico?', client_id: 'm-2', locale: 'en-US', meta: { page_url: 'https://shop.example/faq', visitor: { name: 'Ann', email: 'ann@example.com' } } },
      ],
    },
    responses: {
      200: { description: 'The reply as `text/event-stream`.', media: 'text/event-stream', events: streamEvents },
      403: BLOCKED,
      404: NOT_THEIRS,
      422: 'Validation failed, or the chatbot needs an identity token and none (or an invalid one) was sent (`errors.identity`).',
      429: 'The route limit, the monthly allowance is spent (`limit_reached`), or more than 10 visitor messages in 60 s in this conversation (`flooding`, a strike; the third blocks the visitor); nothing was stored.',
      503: 'The conversation is moving between servers (`actor_unavailable`); retry after `Retry-After`.',
    },
    handler: async ({ ctx, actors, body: parseBody }, req, res) => {
      const { value: chatbot, epoch: settingsEpoch } = await widgetChatbotRead(ctx, req.params.key);
      const body = parseBody();
      const identity = body.identity ? verifyIdentity(body.identity, ctx.secrets.open(chatbot.identitySecretEncrypted)) : undefined;
      if (!identity && prechatOf(chatbot).identityRequired) throw validationFailed({ identity: ['This chatbot needs a signed-in visitor (an identity token).'] });

      const { visitor, ...meta } = body.meta ?? {};
      const input: VisitorMessageInput = {
        chatbotId: chatbot.id,
        visitorKey: body.visitor_id.trim(),
        text: body.message,
        clientId: body.client_id,
        locale: body.locale,
        create: !body.conversation_id,
        channel: 'widget',
        meta: Object.keys(meta).length ? meta : undefined,
        visitor,
        identity: identity && { ...identity },
        timezone: body.timezone,
        settingsEpoch,
      };
      // Without a conversation id the message starts one, unless the visitor has one open: it goes there.
      const opened = await inOpenConversation(body.conversation_id ?? randomUUID(), (id, retry) =>
        open(actors.stream('conversation', id, { type: 'visitorMessage', ...input, create: input.create && !retry }, { timeoutMs: ANSWER_TIMEOUT_MS })),
      );
      await relay(opened, res, ctx.metrics.sseStreams);
    },
  }),
];

interface Opened {
  stream: ActorStream<VisitorChunk, VisitorMessageReply>;
  first: IteratorResult<StreamChunk<VisitorChunk>>;
}

/** The stream up to its first chunk: until then (the visitor's message is stored) a failure is an ordinary JSON error. */
async function open(stream: ActorStream<VisitorChunk, VisitorMessageReply>): Promise<Opened> {
  const chunks = stream[Symbol.asyncIterator]();
  return { stream, first: await chunks.next() }; // throws (404, 409, 503 ...) before anything was sent
}

/** After the first chunk the answer is an event stream ending in `done` or `error`, never a silent hang. */
async function relay({ stream, first }: Opened, res: Response, openStreams: OpenCount): Promise<void> {
  const sse = new SseStream(res, openStreams);
  try {
    if (!first.done) {
      sse.send(first.value.chunk.event, first.value.chunk.data);
      await stream.forEach(({ chunk }) => sse.send(chunk.event, chunk.data));
    }
    const reply = await stream.reply;
    if (reply.outcome === 'answered') sse.send('done', { message_id: reply.answer.id, source: reply.answer.source, sources: reply.answer.sources, ...presentConversationView(reply) });
    else if (reply.outcome === 'held') sse.send('error', { message: reply.note, code: 'handoff' });
    else sse.send('error', errorEvent(reply.error));
  } catch (error) {
    sse.send('error', errorEvent(error instanceof AppError ? error : { code: 'internal', message: '' }));
  } finally {
    sse.end();
  }
}

function errorEvent(error: { code: string; message: string }) {
  return SSE_ERROR_CODES.has(error.code)
    ? { message: error.message, code: error.code }
    : { message: 'The answer was interrupted. Your message was saved; reload the conversation to see where it stands.', code: 'internal' };
}
