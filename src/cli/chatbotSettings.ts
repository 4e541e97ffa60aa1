import { z } from 'zod';
import { PROVIDER_SLUGS } from '../../config/providers';
import { brandingPatch, chatbotRules, prechatPatch } from '../domain/chatbots/settingsRules';
import { updateChatbot } from '../domain/chatbots/updateChatbot';
import { Company, type Chatbot } from '../models';
import { presentChatbotSettings } from '../presenters/chatbot';
import { defineCommand } from './command';
import { findChatbotByKeyOrId } from './lookups';

const CHATBOT_FLAG = { type: 'string', help: "the chatbot's public key (pk_...) or id" } as const;
const chatbotRef = z.string().trim().min(1);
const trueOrFalse = z.enum(['true', 'false']).transform((value) => value === 'true');

/** A flag holding JSON: parsed here, so a typo is refused before anything loads. */
const jsonText = (flag: string) =>
  z.string().transform((text, ctx): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: `The ${flag} flag must hold JSON.` });
      return z.NEVER;
    }
  });

/**
 * Checks a JSON flag's value with its setting's rules; each problem is reported under the setting's own
 * field name (`theme`, `proactive.delay`, `prechat.fields`), as the portal names them.
 */
function checked<S extends z.ZodType>(ctx: z.RefinementCtx, flag: string, value: unknown, schema: S, prefix: string[]): z.output<S> | undefined {
  if (value === undefined) return undefined;
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    ctx.addIssue({ ...issue, path: issue.path.length || issue.code === 'unrecognized_keys' ? [...prefix, ...issue.path] : [flag] });
  }
  return undefined;
}

const updateFlags = z
  .object({
    chatbot: chatbotRef,
    name: chatbotRules.name.optional(),
    role: chatbotRules.role.optional(),
    persona: chatbotRules.persona.optional(),
    instructions: chatbotRules.instructions.optional(),
    'welcome-message': chatbotRules.welcome_message.optional(),
    provider: chatbotRules.provider.optional(),
    model: chatbotRules.model.optional(),
    active: trueOrFalse.optional(),
    'branding-json': jsonText('branding-json').optional(),
    'prechat-json': jsonText('prechat-json').optional(),
    'identity-required': trueOrFalse.optional(),
    'first-response-seconds': z.coerce.number().pipe(chatbotRules.first_response_seconds).optional(),
    'rotate-identity-secret': z.boolean().default(false),
  })
  .transform((flags, ctx) => {
    const branding = checked(ctx, 'branding-json', flags['branding-json'], brandingPatch, []);
    const prechat = checked(ctx, 'prechat-json', flags['prechat-json'], prechatPatch, ['prechat']);
    return { ...flags, branding, prechat };
  });

async function settingsOf(chatbot: Chatbot) {
  const company = await Company.findByPk(chatbot.companyId, { rejectOnEmpty: true });
  return presentChatbotSettings(chatbot, company.firstResponseTargetSeconds);
}

export const chatbotShow = defineCommand({
  usage: 'chatbot show --chatbot KEY_OR_ID',
  summary: "Prints every setting of a chatbot: branding, pre-chat form, identity, the workspace's first-response target (never the identity secret).",
  flags: { chatbot: CHATBOT_FLAG },
  schema: z.object({ chatbot: chatbotRef }),
  async run(_ctx, flags) {
    return { chatbot: await settingsOf(await findChatbotByKeyOrId(flags.chatbot)) };
  },
});

export const chatbotUpdate = defineCommand({
  usage:
    'chatbot update --chatbot KEY_OR_ID [--name N] [--role T] [--persona T] [--instructions T] [--welcome-message T] [--provider P] [--model M] [--active true|false] [--branding-json JSON] [--prechat-json JSON] [--identity-required true|false] [--first-response-seconds N] [--rotate-identity-secret]',
  summary: 'Changes the settings given and prints them all; nothing is saved when any value is refused.',
  flags: {
    chatbot: CHATBOT_FLAG,
    name: { type: 'string', help: "the chatbot's name" },
    role: { type: 'string', help: 'its purpose label, which the AI is told (e.g. "Sales assistant")' },
    persona: { type: 'string', help: 'how the AI should sound' },
    instructions: { type: 'string', help: 'extra rules for the AI' },
    'welcome-message': { type: 'string', help: 'the greeting; empty restores the default' },
    provider: { type: 'string', help: `the AI provider: ${PROVIDER_SLUGS.join(', ')} (without --model, its default model)` },
    model: { type: 'string', help: "the provider's model" },
    active: { type: 'string', help: 'true or false: switched off, the widget does not load' },
    'branding-json': { type: 'string', help: 'branding fields as a JSON object, merged over the stored ones (docs/api.md "Branding values")' },
    'prechat-json': { type: 'string', help: 'pre-chat form fields as a JSON object {enabled, greeting, fields}, merged over the stored ones' },
    'identity-required': { type: 'string', help: 'true or false: the widget must send a verified identity token' },
    'first-response-seconds': { type: 'string', help: "the workspace's first-response target in seconds (shared by its chatbots)" },
    'rotate-identity-secret': { type: 'boolean', help: 'replaces the identity secret and prints the new one, this once; the old one stops verifying' },
  },
  schema: updateFlags,
  async run(ctx, flags) {
    const chatbot = await findChatbotByKeyOrId(flags.chatbot);
    const { identitySecret } = await updateChatbot(
      chatbot,
      {
        name: flags.name,
        role: flags.role,
        persona: flags.persona,
        instructions: flags.instructions,
        welcomeMessage: flags['welcome-message'],
        provider: flags.provider,
        model: flags.model,
        isActive: flags.active,
        branding: flags.branding,
        prechat: flags.prechat,
        identityRequired: flags['identity-required'],
        firstResponseSeconds: flags['first-response-seconds'],
        rotateIdentitySecret: flags['rotate-identity-secret'],
      },
      ctx.secrets,
    );
    const settings = await settingsOf(chatbot);
    return { chatbot: identitySecret ? { ...settings, identity_secret: identitySecret } : settings };
  },
});
