import { z } from 'zod';
import { PROVIDER_SLUGS } from '../../../config/providers';
import { THEMES } from '../../domain/chatbots/branding';
import { brandingRules } from '../../domain/chatbots/settingsRules';
import { count, id } from './formats';
import { named } from './named';

export const provider = z.enum(PROVIDER_SLUGS);
const position = z.enum(['left', 'right']);
const hexColour = z.string().regex(/^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/);

/** Every field, with the rules the portal and the CLI enforce when they write it. */
export const branding = named(
  'Branding',
  z.object({ ...brandingRules, primary_color: hexColour, proactive: brandingRules.proactive.required() }),
  'The full branding object: stored overrides over the defaults.',
);

export const reducedBranding = named(
  'ReducedBranding',
  z.object({ primary_color: hexColour, launcher_text: z.string(), position, theme: z.enum(THEMES) }),
  'The four branding fields the portal update changes.',
);

export const publicKey = z.string().regex(/^pk_\w{24}$/).describe('the chatbot public key');

export const v1ChatbotListItem = named(
  'V1ChatbotListItem',
  z.object({ id, public_key: publicKey, name: z.string(), provider, model: z.string(), is_active: z.boolean() }),
);

export const v1ChatbotDetail = named(
  'V1ChatbotDetail',
  z.object({ public_key: publicKey, name: z.string(), provider, model: z.string(), is_active: z.boolean(), knowledge_sources: count, branding }),
);

const portalListFields = {
  public_key: publicKey,
  name: z.string(),
  role: z.string().describe("the chatbot's purpose label"),
  provider,
  model: z.string(),
  is_active: z.boolean(),
  knowledge_sources: count,
  conversations: count,
};

export const portalChatbotListItem = named('PortalChatbotListItem', z.object(portalListFields));

export const prechat = named(
  'Prechat',
  z.object({
    enabled: z.boolean(),
    greeting: z.string(),
    fields: z.array(z.object({ field: z.enum(['name', 'email', 'phone']), label: z.string(), type: z.enum(['text', 'email', 'tel']), required: z.boolean() })),
  }),
  'The pre-chat form, defaults filled in.',
);

const detailFields = {
  ...portalListFields,
  persona: z.string(),
  instructions: z.string(),
  welcome_message: z.string(),
  prechat,
  identity_required: z.boolean().describe('whether the widget must send a verified identity token before its first message'),
};

export const portalChatbotDetail = named('PortalChatbotDetail', z.object({ ...detailFields, branding }));

export const updatedPortalChatbot = named('UpdatedPortalChatbot', z.object({ ...detailFields, branding: reducedBranding }));
