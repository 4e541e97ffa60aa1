import { z } from 'zod';
import { PROVIDER_SLUGS } from '../../../config/providers';
import { COMPOSER_STYLES, LAUNCHERS, LAYOUTS, PROACTIVE_FREQUENCIES, RECOMMEND_MODES, THEMES } from '../../domain/chatbots/branding';
import { count, id } from './formats';
import { named } from './named';

export const provider = z.enum(PROVIDER_SLUGS);
const position = z.enum(['left', 'right']);
const hexColour = z.string().regex(/^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/);

export const branding = named(
  'Branding',
  z.object({
    primary_color: hexColour,
    launcher_text: z.string(),
    position,
    theme: z.enum(THEMES),
    logo_url: z.string().nullable(),
    avatar_url: z.string().nullable(),
    title: z.string(),
    subtitle: z.string(),
    layout: z.enum(LAYOUTS),
    launcher: z.enum(LAUNCHERS),
    quick_replies: z.array(z.string()),
    agent_avatars: z.array(z.string()),
    composer_style: z.enum(COMPOSER_STYLES),
    sound: z.boolean(),
    screen_share: z.boolean(),
    copilot: z.boolean(),
    auto_actions: z.boolean(),
    copilot_use_profile: z.boolean(),
    copilot_autostart: z.boolean(),
    live_visitors: z.boolean(),
    behavior_tracking: z.boolean(),
    recommend_mode: z.enum(RECOMMEND_MODES),
    proactive: z.object({
      enabled: z.boolean(),
      message: z.string(),
      delay: z.int(),
      scroll: z.int(),
      exit_intent: z.boolean(),
      url_contains: z.string(),
      frequency: z.enum(PROACTIVE_FREQUENCIES),
    }),
  }),
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

const detailFields = { ...portalListFields, persona: z.string(), instructions: z.string(), welcome_message: z.string() };

export const portalChatbotDetail = named('PortalChatbotDetail', z.object({ ...detailFields, branding }));

export const updatedPortalChatbot = named('UpdatedPortalChatbot', z.object({ ...detailFields, branding: reducedBranding }));
