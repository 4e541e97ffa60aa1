import type { Chatbot } from '../../models';
import { resolveBranding, type Branding, type StoredBranding } from './branding';

/** The chatbot's settings with every default filled in: what its flags (copilot, auto_actions, ...) say right now. */
export const settingsOf = (chatbot: Pick<Chatbot, 'branding'>): Branding => resolveBranding(chatbot.branding as StoredBranding);
