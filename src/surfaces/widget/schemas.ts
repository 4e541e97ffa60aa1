import { z } from 'zod';
import { contextMeta, visitorId, visitorMessage, visitorTimezone } from '../../http/visitorFields';
import type { RouteLimit } from '../../openapi/registry';

const prechatVisitor = z.object({
  name: z.string().max(255).optional(),
  email: z.string().max(255).optional(),
  phone: z.string().max(64).optional(),
});

/** Three base64url parts: the shape of a JWT (its signature is checked against the chatbot's secret). Empty means none. */
const JWT_OR_NONE = /^(?:[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)?$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const NOT_A_JWT = 'The identity token is not valid: it is not a JWT.';

/** A BCP 47 language tag as browsers report it: `en`, `pt-BR`, `zh-Hant-TW`. */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

export const streamBody = z.object({
  visitor_id: visitorId,
  message: visitorMessage,
  conversation_id: z.uuid().optional(),
  /** The widget's own id for this message, so a retry is never stored or answered twice. */
  client_id: z.string().max(64).optional(),
  /** The visitor's language (the widget's, else the browser's), so the AI answers in it. */
  locale: z.string().max(35).regex(LANGUAGE_TAG, 'The locale must be a language tag such as en or pt-BR.').optional(),
  meta: contextMeta.and(z.object({ visitor: prechatVisitor.optional() })).optional(),
  identity: z.string().max(4000).regex(JWT_OR_NONE, NOT_A_JWT).optional(),
  timezone: visitorTimezone,
});

/** The identity token where it is sent alone (the state read's header): never empty. */
export const identityToken = z.string().max(4000).regex(JWT, NOT_A_JWT);

export const conversationBody = z.object({ visitor_id: visitorId, conversation_id: z.uuid() });

/** The handoff also carries the email the after-hours form asks for (docs/routing.md). */
export const handoffBody = conversationBody.extend({
  email: z.email('The email must be an email address.').max(255).optional(),
});

/** A follow-up mail's link token (src/domain/followup/link.ts): `v1.<payload>.<mac>`. */
export const continueToken = z.string().max(1000).regex(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'The link is not valid.');

export const stateQuery = z.object({
  visitor_id: visitorId,
  after: z.coerce.number().int().min(0).optional(),
});

/** Widget limits are per client address and per minute. */
export const perIp = (name: string, points: number): RouteLimit => ({ name, points, seconds: 60, by: 'ip' });

export const NO_CHATBOT = 'No active chatbot has that key (unknown key, disabled chatbot or suspended workspace).';
export const NOT_THEIRS = 'No active chatbot has that key, or the conversation is not this visitor’s on this chatbot.';

/** A blocked visitor's widget requests (docs/api.md "Blocking and the flood rule"). */
export const BLOCKED = 'The visitor is blocked on this chatbot (`blocked`, with a `message` to show): nothing of theirs was stored.';

export const SAMPLE_VISITOR = 'visitor-3f9a1c';
export const SAMPLE_CONVERSATION = '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90';
