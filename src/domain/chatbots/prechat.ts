import type { Chatbot } from '../../models';

export interface PrechatField {
  field: 'name' | 'email' | 'phone';
  label: string;
  type: 'text' | 'email' | 'tel';
  required: boolean;
}

export interface Prechat {
  enabled: boolean;
  greeting: string;
  fields: PrechatField[];
  /** Whether the widget must carry a verified identity token (the customer signs visitors in). */
  identityRequired: boolean;
}

const DEFAULT_FIELDS: PrechatField[] = [
  { field: 'name', label: 'Name', type: 'text', required: true },
  { field: 'email', label: 'Email', type: 'email', required: true },
];

/** The chatbot's stored pre-chat settings over the defaults: off, a short greeting, name and email. */
export function prechatOf(chatbot: Pick<Chatbot, 'prechat'>): Prechat {
  const stored = chatbot.prechat as Partial<Prechat & { identity_required: boolean }>;
  return {
    enabled: stored.enabled ?? false,
    greeting: stored.greeting ?? 'Before we start, tell us a little about you.',
    fields: Array.isArray(stored.fields) && stored.fields.length ? stored.fields : DEFAULT_FIELDS,
    identityRequired: stored.identity_required ?? false,
  };
}
