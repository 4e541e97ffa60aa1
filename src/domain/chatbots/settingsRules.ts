import { z } from 'zod';
import { PROVIDER_SLUGS } from '../../../config/providers';
import { COMPOSER_STYLES, LAUNCHERS, LAYOUTS, PROACTIVE_FREQUENCIES, RECOMMEND_MODES, THEMES } from './branding';
import { LANGUAGES } from './languages';

/**
 * The rule of every chatbot setting, field by field, shared by the portal update and `parley chatbot
 * update` so both refuse the same values with the same messages. Rules are lengths, patterns and enums
 * (not refinements) wherever they can be, so the OpenAPI document states them.
 */

/** Text that is not only whitespace (`\S` and `trim()` agree on what whitespace is). */
const NOT_BLANK = /\S/;
const HEX_COLOUR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
/** The widget shows this many quick replies and team avatars; storing more would only hide them. */
export const MAX_QUICK_REPLIES = 8;
export const MAX_AGENT_AVATARS = 3;

export const chatbotRules = {
  name: z.string().max(120).regex(NOT_BLANK, 'The name field is required.'),
  role: z.string().max(120).regex(NOT_BLANK, 'The role field is required.').describe("the chatbot's purpose label; the AI is told it is one"),
  persona: z.string().max(2000),
  instructions: z.string().max(4000),
  welcome_message: z.string().max(300).describe('empty resets it to the default greeting'),
  provider: z.enum(PROVIDER_SLUGS),
  model: z.string().max(120).regex(NOT_BLANK, 'The model field is required.'),
  /** The workspace's target (every chatbot of the workspace shares it). */
  first_response_seconds: z.int().min(1).max(86_400),
};

const proactiveRules = z
  .strictObject({
    enabled: z.boolean(),
    message: z.string().max(300),
    delay: z.int().min(0).max(3600).describe('seconds on the page before it shows'),
    scroll: z.int().min(0).max(100).describe('percent of the page scrolled before it shows; 0 = no condition'),
    exit_intent: z.boolean(),
    url_contains: z.string().max(200).describe('shown only on pages whose address contains this; empty = every page'),
    frequency: z.enum(PROACTIVE_FREQUENCIES),
  })
  .partial();

/** Every branding field; `proactive` is itself merged field by field. */
export const brandingRules = {
  primary_color: z.string().max(9).regex(HEX_COLOUR, 'The primary color must be a hex colour like #2563eb.'),
  launcher_text: z.string().max(40),
  position: z.enum(['left', 'right']),
  theme: z.enum(THEMES),
  logo_url: httpUrl.nullable(),
  avatar_url: httpUrl.nullable(),
  title: z.string().max(80),
  subtitle: z.string().max(160),
  layout: z.enum(LAYOUTS),
  launcher: z.enum(LAUNCHERS),
  quick_replies: z.array(z.string().max(80).regex(NOT_BLANK, 'A quick reply may not be blank.')).max(MAX_QUICK_REPLIES),
  agent_avatars: z.array(httpUrl).max(MAX_AGENT_AVATARS),
  composer_style: z.enum(COMPOSER_STYLES),
  sound: z.boolean(),
  screen_share: z.boolean().describe('stored and returned only: Parley has no screen sharing'),
  copilot: z.boolean(),
  auto_actions: z.boolean(),
  copilot_use_profile: z.boolean(),
  copilot_autostart: z.boolean(),
  live_visitors: z.boolean(),
  behavior_tracking: z.boolean(),
  recommend_mode: z.enum(RECOMMEND_MODES),
  language: z.enum(LANGUAGES).describe("the widget's language: `auto` (the browser's) or an ISO 639-1 code"),
  proactive: proactiveRules,
};

/** Branding changes: any of its fields, merged over the stored ones; an unknown field is refused. */
export const brandingPatch = z.strictObject(brandingRules).partial();
export type BrandingPatch = z.output<typeof brandingPatch>;

const prechatField = z.strictObject({
  field: z.enum(['name', 'email', 'phone']),
  label: z.string().max(60).regex(NOT_BLANK, 'The label field is required.'),
  type: z.enum(['text', 'email', 'tel']),
  required: z.boolean(),
});

/** Pre-chat form changes, merged over the stored form (`fields`, when given, replaces the list). */
export const prechatPatch = z
  .strictObject({
    enabled: z.boolean(),
    greeting: z.string().max(300),
    fields: z
      .array(prechatField)
      .min(1)
      .max(3)
      .refine((fields) => new Set(fields.map((item) => item.field)).size === fields.length, 'Each pre-chat field may be listed once.'),
  })
  .partial();
export type PrechatPatch = z.output<typeof prechatPatch>;
