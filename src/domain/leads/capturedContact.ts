import type { Conversation } from '../../models';

export interface CapturedContact {
  name: string | null;
  email: string | null;
  phone: string | null;
}

const LIMITS = { name: 255, email: 255, phone: 64 } as const;

/**
 * The visitor's contact details as this conversation captured them: the visitor columns (filled by the
 * widget's meta and verified identities) first, then the pre-chat answers, whose field names the
 * chatbot's pre-chat form defines (name, email, phone).
 */
export function capturedContact(conversation: Pick<Conversation, 'visitorName' | 'visitorEmail' | 'visitorPhone' | 'prechat'>): CapturedContact {
  const answers = Array.isArray(conversation.prechat) ? conversation.prechat : [];
  const answer = (field: keyof CapturedContact): string | null => {
    const found = answers.find((entry) => entry?.field?.toString().toLowerCase() === field && typeof entry.value === 'string' && entry.value.trim());
    return found ? found.value.trim() : null;
  };
  const pick = (field: keyof CapturedContact, column: string | null | undefined) =>
    (column?.trim() || answer(field))?.slice(0, LIMITS[field]) ?? null;
  return {
    name: pick('name', conversation.visitorName),
    email: pick('email', conversation.visitorEmail),
    phone: pick('phone', conversation.visitorPhone),
  };
}

export const hasContact = (contact: CapturedContact): boolean => Boolean(contact.name || contact.email || contact.phone);
