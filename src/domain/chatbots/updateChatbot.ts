import type { Chatbot } from '../../models';
import { DEFAULT_WELCOME_MESSAGE, type Branding, type StoredBranding } from './branding';

/** The settings a portal may change; provider and model are not among them. */
export interface ChatbotChanges {
  name: string;
  persona?: string;
  instructions?: string;
  /** Empty resets to the default greeting. */
  welcomeMessage?: string;
  isActive?: boolean;
  /** Merged over the stored branding: fields left out (or undefined) keep their value. */
  branding?: { [F in 'primary_color' | 'launcher_text' | 'position' | 'theme']?: Branding[F] | undefined };
}

export function updateChatbot(chatbot: Chatbot, changes: ChatbotChanges): Promise<Chatbot> {
  const branding: StoredBranding = { ...(chatbot.branding as StoredBranding) };
  for (const [field, value] of Object.entries(changes.branding ?? {})) if (value !== undefined) Object.assign(branding, { [field]: value });
  const welcome = changes.welcomeMessage?.trim();
  return chatbot.update({
    name: changes.name.trim(),
    ...(changes.persona !== undefined && { persona: changes.persona }),
    ...(changes.instructions !== undefined && { instructions: changes.instructions }),
    ...(welcome !== undefined && { welcomeMessage: welcome || DEFAULT_WELCOME_MESSAGE }),
    ...(changes.isActive !== undefined && { isActive: changes.isActive }),
    branding,
  });
}
