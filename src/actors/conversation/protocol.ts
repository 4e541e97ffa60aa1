import type { ConversationStatus, HandoffState } from '../../models';

/** Who the visitor says they are: a pre-chat form or a verified identity token. */
export interface VisitorDetails {
  name?: string;
  email?: string;
  phone?: string;
}

export interface VisitorMessageInput {
  chatbotId: number;
  visitorKey: string;
  text: string;
  /** The client's id for this message: a retry with the same id never stores or answers it twice. */
  clientId?: string;
  /** The route minted this conversation id, so the conversation may not exist yet. */
  create: boolean;
  channel: 'widget' | 'api';
  meta?: Record<string, unknown>;
  visitor?: VisitorDetails;
  /** Verified claims of a widget identity token. */
  identity?: Record<string, unknown>;
}

/** What a streaming caller (the widget's SSE) receives before the reply settles. */
export type VisitorChunk =
  | { event: 'meta'; data: { conversation_id: string; visitor_message_id: number; status: ConversationStatus } }
  | { event: 'delta'; data: { delta: string } };

export interface StoredAnswer {
  id: number;
  content: string;
  model: string;
  provider: string;
  tokensIn: number;
  tokensOut: number;
  /** `ai` when a model wrote it, `knowledge` when the extractive responder quoted the knowledge base. */
  source: 'ai' | 'knowledge';
  sources: Array<{ title: string; url: string }>;
}

export interface ConversationView {
  conversationId: string;
  status: ConversationStatus;
  handoffState: HandoffState;
  /** Seconds left of the workspace's first-response target while a handoff waits; null otherwise. */
  waitRemaining: number | null;
}

export type VisitorMessageReply = ConversationView & { visitorMessageId: number } & (
    | { outcome: 'answered'; answer: StoredAnswer }
    /** A human holds (or is being asked for): the AI stays silent. */
    | { outcome: 'held'; note: string }
    /** The visitor message is stored; the AI could not answer it. */
    | { outcome: 'failed'; error: { status: number; code: string; message: string } }
  );

export interface AgentRef {
  userId: number;
}

declare module '../runtime/protocol' {
  interface ActorProtocols {
    conversation: {
      visitorMessage: { message: VisitorMessageInput; reply: VisitorMessageReply; chunk: VisitorChunk };
      requestHandoff: { message: { chatbotId: number; visitorKey: string }; reply: ConversationView };
      reset: { message: { chatbotId: number; visitorKey: string }; reply: { closed: true; conversationId: string } };
      takeover: { message: AgentRef; reply: ConversationView };
      agentReply: { message: AgentRef & { text: string; clientId?: string }; reply: ConversationView & { messageId: number; duplicate: boolean } };
      release: { message: AgentRef; reply: ConversationView };
      resolve: { message: AgentRef; reply: ConversationView };
      reopen: { message: AgentRef; reply: ConversationView };
      slaCheck: { message: { requestedAt: string } };
    };
  }
}
