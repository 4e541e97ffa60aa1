import { z } from 'zod';
import { Company } from '../../models';
import { isClockTime, isTimeZone, minutesOfClock, ZONE_NAME } from '../notifications/clock';

const ZONE_RULE = 'The timezone must be a time zone name such as Europe/Paris.';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `[["09:00","17:00"], ...]` per day (each pair start, end); a day left out is closed all day. */
export interface BusinessHours {
  timezone: string;
  days: Partial<Record<Weekday, string[][]>>;
}

/** A workspace's routing settings (docs/routing.md), every default filled in. */
export interface RoutingSettings {
  mode: 'manual' | 'auto';
  /** Open human conversations the router gives one agent at most (an agent's own capacity wins). */
  capacity: number;
  /** An agent the router picked who sends nothing for this long loses the conversation to the next one. */
  accept_seconds: number;
  /** Null: always open. */
  business_hours: BusinessHours | null;
  offline_message: string;
  ai_after_hours: boolean;
}

export const DEFAULT_OFFLINE_MESSAGE = "We're away right now. Leave your email and we'll get back to you.";

export const DEFAULT_ROUTING: Readonly<RoutingSettings> = Object.freeze({
  mode: 'manual',
  capacity: 5,
  accept_seconds: 120,
  business_hours: null,
  offline_message: DEFAULT_OFFLINE_MESSAGE,
  ai_after_hours: true,
});

export const MAX_CAPACITY = 100;

const clock = z.string().refine(isClockTime, 'Times are HH:MM on a 24-hour clock, 00:00 to 23:59.');
// A pair as an array of two (not a tuple): JSON Schema tools read `minItems`/`maxItems` more widely than `prefixItems`.
const interval = z
  .array(clock)
  .length(2)
  .refine(([start = '', end = '']) => !isClockTime(start) || !isClockTime(end) || minutesOfClock(start) < minutesOfClock(end), 'Each opening interval must end after it starts (use 00:00 to 23:59 for a whole day).');

const businessHours = z.strictObject({
  timezone: z
    .string()
    .max(64)
    .regex(ZONE_NAME, { message: ZONE_RULE, abort: true })
    .refine(isTimeZone, ZONE_RULE),
  days: z.strictObject(Object.fromEntries(WEEKDAYS.map((day) => [day, z.array(interval).max(6).optional()])) as Record<Weekday, z.ZodOptional<z.ZodArray<typeof interval>>>),
});

/** One rule per setting, shared by the portal body and `parley routing update` (docs/architecture.md). */
export const routingRules = {
  mode: z.enum(['manual', 'auto']).describe('`auto`: the router assigns waiting conversations; `manual`: agents take them'),
  capacity: z.int().min(1).max(MAX_CAPACITY).describe('open human conversations the router gives one agent at most'),
  accept_seconds: z.int().min(5).max(3600).describe('an agent the router picked who sends nothing for this long loses the conversation to the next one'),
  business_hours: businessHours.nullable().describe('opening hours per weekday in a time zone; null = always open'),
  offline_message: z.string().trim().min(1).max(1000),
  ai_after_hours: z.boolean().describe('the AI keeps answering outside business hours'),
};

/** Every setting optional: what a change may carry. */
export const routingPatch = z.strictObject({
  mode: routingRules.mode.optional(),
  capacity: routingRules.capacity.optional(),
  accept_seconds: routingRules.accept_seconds.optional(),
  business_hours: routingRules.business_hours.optional(),
  offline_message: routingRules.offline_message.optional(),
  ai_after_hours: routingRules.ai_after_hours.optional(),
});
export type RoutingPatch = z.output<typeof routingPatch>;

/** The stored settings over the defaults; a stored value that no longer passes its rule falls back to the default. */
export function routingOf(company: Pick<Company, 'settings'>): RoutingSettings {
  const stored = (company.settings?.routing ?? {}) as Record<string, unknown>;
  const settings: Record<string, unknown> = { ...DEFAULT_ROUTING };
  for (const [name, rule] of Object.entries(routingRules)) {
    const parsed = (rule as z.ZodType).safeParse(stored[name]);
    if (stored[name] !== undefined && parsed.success) settings[name] = parsed.data;
  }
  return settings as unknown as RoutingSettings;
}

/** The workspace's routing settings as stored now (read fresh: an operator's change applies at once). */
export async function routingOfCompany(companyId: number): Promise<RoutingSettings> {
  const company = await Company.findByPk(companyId, { attributes: ['id', 'settings'] });
  return company ? routingOf(company) : { ...DEFAULT_ROUTING };
}

/** Merges a change over the stored settings, keeping every other key of `companies.settings`. */
export async function updateRouting(company: Company, patch: RoutingPatch): Promise<RoutingSettings> {
  const merged = { ...routingOf(company), ...patch };
  await company.update({ settings: { ...company.settings, routing: merged } });
  return routingOf(company);
}
