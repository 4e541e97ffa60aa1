import { envelopeOf, type StoredEvent } from '../domain/webhooks/events';
import type { Conversation, Lead, Message } from '../models';

// The `data` of the events integrators hear (docs/webhooks.md "Events"), in the v1 API's style: ISO
// times in UTC, the conversation by its public id. Read inside the write, so they show the row as written.

/** `conversation.created` / `conversation.updated`. */
export const presentWebhookConversation = (conversation: Conversation, chatbotKey: string) => ({
  conversation: {
    id: conversation.publicId,
    chatbot: chatbotKey,
    channel: conversation.channel,
    status: conversation.status,
    handoff_state: conversation.handoffState,
    assigned_user_id: conversation.assignedUserId ?? null,
    resolution: conversation.resolution ?? null,
    visitor_id: conversation.visitorKey,
    created_at: conversation.createdAt.toISOString(),
  },
});

/** `message.created`: every role, so an agent's reply in an `api` conversation reaches the integrator. */
export const presentWebhookMessage = (message: Message) => ({
  message: {
    id: Number(message.id),
    role: message.role,
    content: message.content,
    author_user_id: message.authorUserId ?? null,
    created_at: message.createdAt.toISOString(),
  },
});

/** `lead.created`: the first time a conversation's contact details are saved as a lead. */
export const presentWebhookLead = (lead: Lead) => ({
  lead: {
    id: Number(lead.id),
    name: lead.name ?? null,
    email: lead.email ?? null,
    phone: lead.phone ?? null,
    status: lead.status,
    source: lead.source,
    created_at: lead.createdAt.toISOString(),
  },
});

/** An event in its envelope, as the catch-up endpoint lists it: the same body a webhook delivery carries. */
export const presentIntegrationEvent = (event: StoredEvent) => envelopeOf(event);
