import type { ProviderSlug } from '../../../config/providers';
import { Company, type Chatbot } from '../../models';
import type { SecretBox } from '../../security/encryption';
import { randomSecret } from '../../security/tokens';
import { DEFAULT_WELCOME_MESSAGE, type StoredBranding } from './branding';
import { DEFAULT_MODELS, IDENTITY_SECRET_LENGTH } from './createChatbot';
import type { BrandingPatch, PrechatPatch } from './settingsRules';

/** Changes to a chatbot's settings, already validated (settingsRules.ts); what is left out keeps its value. */
export interface ChatbotChanges {
  name?: string;
  role?: string;
  persona?: string;
  instructions?: string;
  /** Empty resets to the default greeting. */
  welcomeMessage?: string;
  isActive?: boolean;
  /** A new provider without a model takes that provider's default model. */
  provider?: ProviderSlug;
  model?: string;
  /** Merged over the stored branding, `proactive` field by field. */
  branding?: BrandingPatch;
  /** Merged over the stored pre-chat form. */
  prechat?: PrechatPatch;
  identityRequired?: boolean;
  /** The workspace's first-response target, shared by its chatbots. */
  firstResponseSeconds?: number;
  /** A new identity secret replaces the old one, which stops verifying at once. */
  rotateIdentitySecret?: boolean;
}

/**
 * Applies the changes in one transaction: the chatbot, and the workspace's target when given. Returns
 * the new identity secret when it was rotated (shown this once; it is stored sealed).
 */
export async function updateChatbot(chatbot: Chatbot, changes: ChatbotChanges, secrets: SecretBox): Promise<{ identitySecret?: string }> {
  const identitySecret = changes.rotateIdentitySecret ? randomSecret(IDENTITY_SECRET_LENGTH) : undefined;
  const welcome = changes.welcomeMessage?.trim();
  const model = changes.model?.trim() ?? (changes.provider && changes.provider !== chatbot.provider ? DEFAULT_MODELS[changes.provider] : undefined);
  await chatbot.sequelize.transaction(async (transaction) => {
    await chatbot.update(
      {
        ...(changes.name !== undefined && { name: changes.name.trim() }),
        ...(changes.role !== undefined && { role: changes.role.trim() }),
        ...(changes.persona !== undefined && { persona: changes.persona }),
        ...(changes.instructions !== undefined && { instructions: changes.instructions }),
        ...(welcome !== undefined && { welcomeMessage: welcome || DEFAULT_WELCOME_MESSAGE }),
        ...(changes.isActive !== undefined && { isActive: changes.isActive }),
        ...(changes.provider !== undefined && { provider: changes.provider }),
        ...(model !== undefined && { model }),
        branding: mergedBranding(chatbot.branding as StoredBranding, changes.branding ?? {}),
        prechat: {
          ...chatbot.prechat,
          ...withoutUndefined(changes.prechat ?? {}),
          ...(changes.identityRequired !== undefined && { identity_required: changes.identityRequired }),
        },
        ...(identitySecret && { identitySecretEncrypted: secrets.seal(identitySecret) }),
      },
      { transaction },
    );
    if (changes.firstResponseSeconds !== undefined) {
      await Company.update({ firstResponseTargetSeconds: changes.firstResponseSeconds }, { where: { id: chatbot.companyId }, transaction });
    }
  });
  return { identitySecret };
}

function mergedBranding(stored: StoredBranding, patch: BrandingPatch): StoredBranding {
  const { proactive, ...fields } = withoutUndefined(patch);
  return { ...stored, ...fields, ...(proactive && { proactive: { ...stored.proactive, ...withoutUndefined(proactive) } }) };
}

/** A field sent as undefined (a destructured body) means "left out", not "cleared". */
function withoutUndefined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
