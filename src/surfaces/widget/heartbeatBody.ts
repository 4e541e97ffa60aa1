import { z } from 'zod';
import { visitorId, visitorTimezone } from '../../http/visitorFields';
import { NOT_BLANK } from '../../http/validate';

const URL_MAX = 2048;
const VISITOR_ID_MAX = 100;
const TITLE_MAX = 500;
const REFERRER_MAX = 2048;

const httpUrl = z.url({ protocol: /^https?$/, error: 'The url field must be a valid URL.' }).max(URL_MAX);

/** The beat's body as the widget sends it; its 422 messages name each failing field. */
export const heartbeatBody = z.object({
  visitor_id: visitorId,
  url: httpUrl,
  title: z.string().max(TITLE_MAX).nullish(),
  // document.referrer is '' when there is none, so empty is allowed (and means "none").
  referrer: z.string().max(REFERRER_MAX).nullish(),
  conversation_id: z.uuid().nullish(),
  timezone: visitorTimezone,
});

export type HeartbeatBody = z.output<typeof heartbeatBody>;

/**
 * An http(s) URL in printable ASCII (what a browser's `location.href` is): nothing zod's check would
 * trim (String#trim also trims Unicode spaces) or strip (tabs, newlines), so its output is the input.
 */
const PLAIN_HTTP_URL = /^https?:\/\/[\x21-\x7e]*$/i;
/** The pattern `z.uuid()` checks. */
const UUID = z.regexes.uuid();

/**
 * The beat's body checked by hand, for the body every open page sends every few seconds: the same
 * answer as `heartbeatBody.parse` for the bodies it accepts, and undefined for anything it is not
 * sure of (the caller then parses with zod, which says what is wrong). What it accepts zod accepts
 * too, field by field: the visitor id not blank and at most 100 characters; the url an http(s) URL
 * the WHATWG parser reads, at most 2,048 characters, with no character zod's check would trim or
 * strip (so zod's output is the input); title and referrer null or short enough strings;
 * conversation_id null or zod's UUID; the time zone through its own zod schema (a zone name the
 * server does not know becomes undefined). Unknown fields are dropped, as zod's object drops them.
 * Why: zod's object parse was a few percent of a beat's CPU (docs/performance.md, "Heartbeat CPU,
 * fifth round").
 */
export function heartbeatBodyAtOnce(body: unknown): HeartbeatBody | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  const visitor = fields.visitor_id;
  const url = fields.url;
  if (typeof visitor !== 'string' || visitor.length > VISITOR_ID_MAX || !NOT_BLANK.test(visitor)) return undefined;
  if (typeof url !== 'string' || url.length > URL_MAX || !PLAIN_HTTP_URL.test(url) || !URL.canParse(url)) return undefined;
  const title = fields.title;
  const referrer = fields.referrer;
  const conversation = fields.conversation_id;
  if (!(title == null || (typeof title === 'string' && title.length <= TITLE_MAX))) return undefined;
  if (!(referrer == null || (typeof referrer === 'string' && referrer.length <= REFERRER_MAX))) return undefined;
  if (!(conversation == null || (typeof conversation === 'string' && UUID.test(conversation)))) return undefined;
  let timezone: string | undefined;
  if (fields.timezone !== undefined) {
    const zone = visitorTimezone.safeParse(fields.timezone);
    if (!zone.success) return undefined;
    timezone = zone.data;
  }
  return {
    visitor_id: visitor,
    url,
    title: title as string | null | undefined,
    referrer: referrer as string | null | undefined,
    conversation_id: conversation as string | null | undefined,
    timezone,
  };
}
