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

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
/** Digits with the usual separators: "+31 6 1234 5678", "(555) 010-9999", "555.010.9999". */
const PHONE = /(?<![\w+])\+?\(?\d[\d\s().-]{6,22}\d(?![\w@])/g;
/** A date is not a phone number, however many digits it has. */
const DATE = /\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}/;
const PHONE_DIGITS = { min: 9, max: 15 } as const;

/**
 * An email address and a phone number written in a message, when it carries them: a phone number is
 * 9 to 15 digits with spaces, dots, dashes or brackets between them and an optional leading "+"
 * (shorter runs are order numbers, amounts and the like).
 */
export function contactIn(text: string): { email: string | null; phone: string | null } {
  const email = EMAIL.exec(text)?.[0] ?? null;
  const phone = [...text.matchAll(PHONE)].map((match) => match[0].trim()).find((candidate) => {
    const digits = candidate.replace(/\D/g, '').length;
    return digits >= PHONE_DIGITS.min && digits <= PHONE_DIGITS.max && !DATE.test(candidate);
  });
  return { email: email?.slice(0, LIMITS.email) ?? null, phone: phone?.slice(0, LIMITS.phone) ?? null };
}
