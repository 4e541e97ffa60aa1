import { z } from 'zod';
import { MAX_CAPACITY, routingOf, routingRules, updateRouting } from '../domain/routing/settings';
import { setCapacity } from '../domain/routing/agentStatus';
import { presentRoutingSettings } from '../presenters/routing';
import { presentV1User } from '../presenters/account';
import { COMPANY_FLAG, defineCommand } from './command';
import { findUser, findWorkspace } from './lookups';

const trueOrFalse = z.enum(['true', 'false']).transform((value) => value === 'true');

/** `--business-hours-json`: JSON (checked with the portal's rule below); an empty value clears it (always open). */
const jsonFlag = z.string().transform((text, ctx): unknown => {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'The business-hours-json flag must hold JSON.' });
    return z.NEVER;
  }
});

export const routingShow = defineCommand({
  usage: 'routing show --company ID',
  summary: "Prints the workspace's routing settings (mode, capacity, accept time, business hours).",
  flags: { company: COMPANY_FLAG },
  schema: z.object({ company: z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    return { routing: presentRoutingSettings(routingOf(await findWorkspace(flags.company))) };
  },
});

export const routingUpdate = defineCommand({
  usage:
    'routing update --company ID [--mode manual|auto] [--capacity N] [--accept-seconds N] [--business-hours-json JSON] [--offline-message T] [--ai-after-hours true|false]',
  summary: 'Changes the routing settings given and prints them all; nothing is saved when any value is refused (an empty --business-hours-json means always open).',
  flags: {
    company: COMPANY_FLAG,
    mode: { type: 'string', help: 'manual (agents take conversations) or auto (the router assigns them)' },
    capacity: { type: 'string', help: `open human conversations per agent, 1 to ${MAX_CAPACITY}` },
    'accept-seconds': { type: 'string', help: 'seconds an assigned agent has to answer before the next one gets it, 5 to 3600' },
    'business-hours-json': { type: 'string', help: '{"timezone":"Europe/Paris","days":{"mon":[["09:00","17:00"]]}}; empty = always open' },
    'offline-message': { type: 'string', help: 'what the widget says outside business hours' },
    'ai-after-hours': { type: 'string', help: 'true or false: the AI keeps answering outside business hours' },
  },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    mode: routingRules.mode.optional(),
    capacity: z.coerce.number().pipe(routingRules.capacity).optional(),
    'accept-seconds': z.coerce.number().pipe(routingRules.accept_seconds).optional(),
    'business-hours-json': jsonFlag.optional(),
    'offline-message': routingRules.offline_message.optional(),
    'ai-after-hours': trueOrFalse.optional(),
  }).transform((flags, ctx) => {
    // Problems inside the JSON are named as the portal names them (`business_hours.timezone`).
    const hours = flags['business-hours-json'];
    if (hours === undefined || hours === null) return { ...flags, businessHours: hours };
    const parsed = routingRules.business_hours.safeParse(hours);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['business_hours', ...issue.path] });
    return { ...flags, businessHours: parsed.data };
  }),
  async run(_ctx, flags) {
    const company = await findWorkspace(flags.company);
    const patch = {
      ...(flags.mode !== undefined && { mode: flags.mode }),
      ...(flags.capacity !== undefined && { capacity: flags.capacity }),
      ...(flags['accept-seconds'] !== undefined && { accept_seconds: flags['accept-seconds'] }),
      ...(flags.businessHours !== undefined && { business_hours: flags.businessHours }),
      ...(flags['offline-message'] !== undefined && { offline_message: flags['offline-message'] }),
      ...(flags['ai-after-hours'] !== undefined && { ai_after_hours: flags['ai-after-hours'] }),
    };
    return { routing: presentRoutingSettings(await updateRouting(company, patch)) };
  },
});

export const userUpdate = defineCommand({
  usage: 'user update --user ID --capacity N',
  summary: "Sets an agent's own capacity for auto-assignment (an empty value goes back to the workspace's).",
  flags: { user: { type: 'string', help: "the user's id" }, capacity: { type: 'string', help: `open human conversations, 1 to ${MAX_CAPACITY}; empty = the workspace's` } },
  schema: z.object({
    user: z.coerce.number().int().positive(),
    capacity: z.union([z.literal('').transform(() => null), z.coerce.number().pipe(routingRules.capacity)]),
  }),
  async run(_ctx, flags) {
    const user = await setCapacity(await findUser(flags.user), flags.capacity);
    return { user: { ...presentV1User(user), capacity: user.capacity } };
  },
});
