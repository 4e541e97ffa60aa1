import type { Request } from 'express';
import { visitorActorId, type HeartbeatReply } from '../../actors/visitor/protocol';
import { answerJson } from '../../http/hotAnswer';
import { heartbeatAnswer } from '../../openapi/responses/widget';
import { endpoint } from '../endpoint';
import { heartbeatBody, heartbeatBodyAtOnce } from './heartbeatBody';
import { heartbeatChatbot } from './heartbeatChatbot';
import { BLOCKED, NO_CHATBOT, perIp, SAMPLE_VISITOR } from './schemas';

const USER_AGENT_MAX = 1000;
/** Country headers set by CDNs; `XX` (unknown) and `T1` (Tor) are not countries. */
const COUNTRY_HEADERS = ['cf-ipcountry', 'x-country-code'] as const;
const LOCALE = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * `POST /widget/{key}/heartbeat`: the widget's beat every `poll_seconds`. Marks the visitor online,
 * records the page, and hands over messages an agent left while the chat was closed.
 */
export const heartbeatEndpoints = [
  endpoint({
    surface: 'widget',
    auth: 'none',
    method: 'post',
    path: '/widget/{key}/heartbeat',
    summary: 'The widget’s beat every `poll_seconds`: presence, page, and waiting agent messages',
    description: 'A visitor with no heartbeat for 2 x poll_seconds has left the site. A `conversation_id` that is not the visitor’s is ignored.',
    limit: perIp('widget-heartbeat', 240),
    body: {
      schema: heartbeatBody,
      examples: [{ visitor_id: SAMPLE_VISITOR, url: 'https://shop.example/shoes', title: 'Shoes', referrer: '', conversation_id: null, timezone: 'Europe/Paris' }],
    },
    responses: { 200: { description: 'The interval, the conversation to show and waiting messages.', json: heartbeatAnswer }, 403: BLOCKED, 404: NO_CHATBOT },
    handler: async ({ actors, body: parseBody }, req, res) => {
      const chatbot = await heartbeatChatbot(req.params.key);
      // The usual body checked by hand; anything else through zod, which names what is wrong.
      const body = heartbeatBodyAtOnce(req.body) ?? parseBody();
      const visitorKey = body.visitor_id.trim();
      const reply: HeartbeatReply = await actors.ask('visitor', visitorActorId(chatbot.companyId, visitorKey), {
        type: 'heartbeat',
        chatbotId: chatbot.id,
        companyId: chatbot.companyId,
        trackBehavior: chatbot.trackBehavior,
        visitorKey,
        url: body.url,
        title: body.title ?? undefined,
        referrer: body.referrer || undefined,
        conversationId: body.conversation_id?.toLowerCase(),
        userAgent: req.headers['user-agent']?.slice(0, USER_AGENT_MAX) || undefined,
        country: countryOf(req),
        locale: localeOf(req.headers['accept-language']),
        timezone: body.timezone,
      });
      answerJson(res, { poll_seconds: reply.pollSeconds, conversation_id: reply.conversationId, messages: reply.messages });
    },
  }),
];

/** Headers read from `req.headers`: on the hot path the request has no express helpers (src/http/hotRoutes.ts). */
function countryOf(req: Request): string | undefined {
  for (const name of COUNTRY_HEADERS) {
    const header = req.headers[name];
    const value = typeof header === 'string' ? header.trim().toUpperCase() : undefined;
    if (value && /^[A-Z]{2}$/.test(value) && value !== 'XX') return value;
  }
  return undefined;
}

/** The browser's first preferred language ("en-US,en;q=0.9" -> "en-US"), when it is a sane tag. */
function localeOf(header: string | undefined): string | undefined {
  const first = header?.split(',')[0]?.split(';')[0]?.trim();
  return first && first.length <= 35 && LOCALE.test(first) ? first : undefined;
}
