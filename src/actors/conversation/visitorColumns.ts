import { verifiedDetails } from '../../domain/conversations/identity';
import type { Conversation } from '../../models';
import type { VisitorDetails, VisitorMessageInput } from './protocol';

// The conversation's columns a visitor's message sets: shared by the general write and the one-statement ones.

/**
 * What the visitor told us about themselves, merged over what the conversation already knew. A claim
 * of the verified identity (this message's token, else the one stored) beats a typed answer: anyone
 * can type someone else's email, and agents are shown that email's orders and payments.
 */
export function visitorColumns(conversation: Conversation, input: VisitorMessageInput) {
  const details = { ...input.visitor, ...verifiedDetails(input.identity ?? conversation.identity) };
  return {
    ...(details.name && { visitorName: details.name }),
    ...(details.email && { visitorEmail: details.email }),
    ...(details.phone && { visitorPhone: details.phone }),
    ...(input.timezone && { timezone: input.timezone }),
    // The message carries the conversation to the device that sent it (a verified customer's other device).
    visitorKey: input.visitorKey,
    ...(input.identity && { identity: input.identity, identitySub: input.identity.sub }),
    ...(input.locale && { locale: input.locale }),
    ...(input.visitor && { prechat: prechatAnswers(conversation, input.visitor) }),
    ...(input.meta && { meta: { ...conversation.meta, ...input.meta } }),
  };
}

/** The pre-chat form's answers as the agent app lists them, merged over earlier ones by field. */
function prechatAnswers(conversation: Conversation, visitor: VisitorDetails) {
  const answers = new Map(conversation.prechat.map((entry) => [entry.field, entry.value]));
  for (const [field, value] of Object.entries(visitor)) if (typeof value === 'string' && value.trim()) answers.set(field, value.trim());
  return [...answers].map(([field, value]) => ({ field, value }));
}
