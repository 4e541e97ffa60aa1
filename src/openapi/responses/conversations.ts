import { z } from 'zod';
import { displayTime, id, isoMicros, isoOffset, uuid } from './formats';
import { named } from './named';

export const messageRole = z.enum(['visitor', 'assistant', 'agent', 'system']);
export const conversationStatus = z.enum(['bot', 'agent', 'closed']);
export const handoffState = z.enum(['bot_active', 'handoff_pending', 'human_connected']);

export const v1ConversationRow = named(
  'V1ConversationRow',
  z.object({ id, public_id: uuid, status: conversationStatus, visitor_id: z.string(), last_message_at: isoMicros }),
);

export const v1ConversationDetail = named(
  'V1ConversationDetail',
  z.object({
    id: uuid,
    status: conversationStatus,
    visitor_id: z.string(),
    messages: z.array(z.object({ id, role: messageRole, content: z.string(), created_at: isoMicros })),
  }),
);

/** Laravel's length-aware paginator around v1 rows. */
export const v1ConversationPage = named(
  'V1ConversationPage',
  z.object({
    current_page: id,
    data: z.array(v1ConversationRow),
    first_page_url: z.string(),
    from: id.nullable(),
    last_page: id,
    last_page_url: z.string(),
    next_page_url: z.string().nullable(),
    path: z.string(),
    per_page: id,
    prev_page_url: z.string().nullable(),
    to: id.nullable(),
    total: z.int().min(0),
  }),
);

/** A transcript line in the agent app (display time). */
export const agentMessage = named('AgentMessage', z.object({ id, role: messageRole, content: z.string(), at: displayTime }));

/** A line of the thread (`active.messages`): with the visitor's rating of an AI answer. */
export const threadMessage = named(
  'ThreadMessage',
  agentMessage.extend({ rating: z.enum(['up', 'down']).nullable().describe("the visitor's thumbs up or down on an AI answer (extension, answer feedback); null when unrated") }),
);

/** A transcript line as the widget sees it (ISO time). */
export const widgetMessage = named('WidgetMessage', z.object({ id, role: messageRole, content: z.string(), at: isoOffset }));

/** Where a conversation stands for the widget. */
export const conversationView = named(
  'ConversationView',
  z.object({ status: conversationStatus, handoff_state: handoffState, wait_remaining: z.int().min(0).nullable().describe('seconds left of the first-response target while handoff_pending; else null') }),
);

/** 409 `conversation_open`: the move would give the visitor a second open conversation with the chatbot. */
export const openElsewhere = {
  description: 'The visitor already has another open conversation with this chatbot (`conversation_open`); `conversation_id` names it. Nothing was written.',
  json: z.object({ message: z.string(), code: z.literal('conversation_open'), conversation_id: uuid }),
};
