import type { SummaryAnswer } from '../../domain/assist/parseSummaryAnswer';
import type { ParsedTagSuggestion } from '../../domain/assist/parseTagAnswer';
import type { VisitorClaim, VisitorIdentity } from '../../domain/conversations/identity';
import type { AnswerRating } from '../../domain/conversations/answerRatings';
import type { ProductRecommendation } from '../../domain/integrations/recommendations';
import type { Revenue, RevenueChange } from '../../domain/leads/revenue';
import type { SavedLead } from '../../domain/leads/saveLead';
import type { ConversationStatus, HandoffState, SuggestionOutcome } from '../../models';

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
  /** The visitor's language tag (`fr`, `pt-BR`): the AI is told to answer in it. */
  locale?: string;
  meta?: Record<string, unknown>;
  visitor?: VisitorDetails;
  /** Verified claims of a widget identity token. */
  identity?: VisitorIdentity;
  /** The IANA zone the widget reported (one the server knows). */
  timezone?: string;
  /**
   * The cluster's settings epoch the route read for this request (its chatbot), so the turn checks
   * its remembered settings against it without reading it again (src/domain/chatbots/settingsCache.ts).
   */
  settingsEpoch?: string;
}

/** What a streaming caller (the widget's SSE) receives before the reply settles. */
export type VisitorChunk =
  | { event: 'meta'; data: { conversation_id: string; visitor_message_id: number; status: ConversationStatus } }
  | { event: 'delta'; data: { delta: string } }
  | { event: 'recommendations'; data: { products: ProductRecommendation[] } };

export interface StoredAnswer {
  id: number;
  content: string;
  model: string;
  provider: string;
  tokensIn: number;
  tokensOut: number;
  /**
   * `ai` when a model wrote it, `knowledge` when the extractive responder quoted the knowledge base,
   * `handoff` when the AI handed the conversation to a person (its last line before it goes quiet).
   */
  source: 'ai' | 'knowledge' | 'handoff';
  sources: Array<{ title: string; url: string }>;
}

export interface ConversationView {
  conversationId: string;
  status: ConversationStatus;
  handoffState: HandoffState;
  resolution: string | null;
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

/** An agent starts a chat with a browsing visitor (the live visitors list's invite). */
export interface InviteInput extends AgentRef {
  chatbotId: number;
  visitorKey: string;
  text: string;
}

/** A line an agent sent; `at` is ISO 8601 (replies cross nodes as JSON). */
export interface SentMessage {
  id: number;
  content: string;
  at: string;
}

export interface StoredNote {
  id: number;
  body: string;
  userId: number | null;
  at: string;
}

/** Someone started (`typing: true`, repeated while they type) or stopped typing; held in memory, never stored. */
export type TypingSignal = { typing: boolean } & (
  | { who: 'visitor'; chatbotId: number; preview?: string }
  | { who: 'agent'; userId: number; companyId: number; name: string }
);

declare module '../runtime/protocol' {
  interface ActorProtocols {
    conversation: {
      visitorMessage: { message: VisitorMessageInput; reply: VisitorMessageReply; chunk: VisitorChunk };
      requestHandoff: { message: { chatbotId: number; visitorKey: string }; reply: ConversationView };
      reset: { message: { chatbotId: number; visitorKey: string }; reply: { closed: true; conversationId: string } };
      /** A verified customer's conversation moves to the device (visitor id) they opened the widget on. */
      continueOnDevice: { message: VisitorClaim & { sub: string }; reply: ConversationView };
      takeover: { message: AgentRef; reply: ConversationView };
      agentReply: { message: AgentRef & { text: string; clientId?: string }; reply: ConversationView & { message: SentMessage; duplicate: boolean } };
      release: { message: AgentRef; reply: ConversationView };
      resolve: { message: AgentRef; reply: ConversationView };
      reopen: { message: AgentRef; reply: ConversationView };
      slaCheck: { message: { requestedAt: string } };
      /**
       * The AI's answer `answerId` has had the workspace's quiet time: close the conversation if it (or a
       * later answer whose quiet time passed too) is still the last word. `again`: armed by a check, under the second key.
       */
      idleCheck: { message: { answerId: number; again?: boolean } };
      invite: { message: InviteInput; reply: ConversationView & { created: boolean; message: SentMessage } };
      note: { message: AgentRef & { body: string }; reply: StoredNote };
      tag: { message: AgentRef & { tagId: number; attach: boolean }; reply: { changed: boolean } };
      /** An agent blocks (`blocked: true`) or unblocks the visitor; the reply is the state now. */
      block: { message: AgentRef & { blocked: boolean }; reply: { blocked: boolean } };
      /** An agent opened the thread: the visitor's messages so far count as read (`read` goes to that agent's devices). */
      markRead: { message: AgentRef; reply: { unreadCount: number } };
      // What agents and their AI assist record beside the thread; each raises `conversation.updated`.
      setRevenue: { message: RevenueChange; reply: Revenue };
      saveLead: { reply: SavedLead };
      /** `summaryAt` is ISO 8601. */
      /** A null `intent` (the model named none) keeps the one stored. */
      saveSummary: { message: SummaryAnswer; reply: { summaryAt: string } };
      replaceSuggestedTags: { message: { suggestions: ParsedTagSuggestion[] }; reply: { stored: number } };
      /** `announce`: a drafted suggestion nobody asked for (`copilot_autostart`), sent to the agent as `suggestion.ready`. */
      keepSuggestion: { message: AgentRef & { suggestion: string | null; announce?: boolean }; reply: { id: number } };
      suggestionOutcome: { message: { suggestionId: number; outcome: SuggestionOutcome } };
      /** The visitor's thumbs up or down on an AI answer of their own conversation; a repeat replaces it. */
      rateAnswer: { message: { chatbotId: number; visitorKey: string } & AnswerRating; reply: { ok: true } };
      /** A tell from a socket: passes through the owner so it is ordered with the thread and reaches every node. */
      typing: { message: TypingSignal };
      /** The workspace's router gives this waiting conversation to an agent (auto mode, docs/routing.md). */
      autoAssign: { message: AgentRef & { capacity: number; acceptSeconds: number }; reply: 'assigned' | 'full' | 'gone' };
      /** The accept timer of the router's assignment at `routedAt` (ISO 8601) ran out. */
      acceptCheck: { message: AgentRef & { routedAt: string } };
      /** The offline follow-up's reminder: email agent lines the visitor has not received (docs/routing.md). */
      followUpCheck: { message: Record<never, never> };
      /**
       * A follow-up mail's link was opened on this device (visitor id): the conversation moves to it, so
       * the visitor answers from there. The route verified the link; the mail must be this conversation's.
       */
      continueByLink: { message: { chatbotId: number; visitorKey: string; followupId: number }; reply: ConversationView };
      /** The visitor left an email in the widget (the after-hours form): the address a follow-up goes to. */
      leaveEmail: { message: { chatbotId: number; visitorKey: string; email: string }; reply: ConversationView };
    };
  }
}
