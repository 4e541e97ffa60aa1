import type { Conversation, ConversationStatus, HandoffState } from '../../models';

/**
 * The status / handoff_state machine (docs/api.md "Conversations") as
 * pure functions: each returns the columns that change, or undefined when the move does not apply.
 */
type State = Pick<Conversation, 'status' | 'handoffState' | 'assignedUserId' | 'handoffRequestedAt'>;
export type Changes = Partial<
  Pick<Conversation, 'status' | 'handoffState' | 'assignedUserId' | 'handoffRequestedAt' | 'slaBreachedAt' | 'resolution' | 'resolvedAt' | 'escalated' | 'resolvedByAi'>
>;

const is = (state: State, status: ConversationStatus, handoff?: HandoffState) =>
  state.status === status && (handoff === undefined || state.handoffState === handoff);

/** A visitor writes to a closed conversation: it reopens with the AI (event `reopened`, source visitor). */
export const reopenByVisitor = (state: State): Changes | undefined => (is(state, 'closed') ? reopened() : undefined);

/** Agent reopen: closed -> bot. */
export const reopenByAgent = (state: State): Changes | undefined => (is(state, 'closed') ? reopened() : undefined);

/** The visitor asks for a person: the AI stops and a wait starts (already waiting or held: no change). */
export const requestHuman = (state: State, now: Date): Changes | undefined =>
  is(state, 'bot', 'bot_active') ? { handoffState: 'handoff_pending', handoffRequestedAt: now, slaBreachedAt: null } : undefined;

/**
 * The AI hands the conversation to a person (the visitor asked it for one): the same wait as the
 * handoff button, flagged `escalated` so the inbox shows who asked.
 */
export const escalate = (state: State, now: Date): Changes | undefined => {
  const changes = requestHuman(state, now);
  return changes && { ...changes, escalated: true };
};

/** Takeover, an agent reply, or an invite: a person holds the conversation. */
export const takeOver = (state: State, userId: number): Changes | undefined =>
  is(state, 'agent', 'human_connected') && state.assignedUserId === userId
    ? undefined
    : { status: 'agent', handoffState: 'human_connected', assignedUserId: userId, resolution: null, resolvedAt: null, resolvedByAi: false };

/** Release: handed back to the AI. */
export const release = (state: State): Changes | undefined =>
  is(state, 'agent') ? { status: 'bot', handoffState: 'bot_active', assignedUserId: null, handoffRequestedAt: null, escalated: false } : undefined;

/** An agent resolves -> closed with resolution `resolved`. */
export const resolve = (state: State, now: Date): Changes | undefined =>
  is(state, 'closed') ? undefined : { ...closed(now), resolution: 'resolved', resolvedByAi: false };

/** The AI's idle close: a conversation it answered, left alone by the visitor, is resolved by the AI. */
export const resolveByAi = (state: State, now: Date): Changes | undefined =>
  is(state, 'bot', 'bot_active') ? { ...closed(now), resolution: 'resolved', resolvedByAi: true } : undefined;

/**
 * The widget's "new chat": the open conversation closes without a resolution; `aiHadLastWord` (the
 * AI answered the visitor's last message and no agent wrote after it) makes it resolved by the AI.
 */
export const closeByVisitor = (state: State, now: Date, aiHadLastWord = false): Changes | undefined =>
  is(state, 'closed') ? undefined : { ...closed(now), resolution: null, resolvedByAi: aiHadLastWord };

function closed(now: Date) {
  return { status: 'closed', handoffState: 'bot_active', resolvedAt: now, handoffRequestedAt: null, escalated: false } as const;
}

function reopened(): Changes {
  return { status: 'bot', handoffState: 'bot_active', resolution: null, resolvedAt: null, resolvedByAi: false, assignedUserId: null, handoffRequestedAt: null, escalated: false };
}

/** Whether the AI may answer now: only while the bot holds the conversation and nobody was asked for. */
export const aiMayAnswer = (state: State): boolean => is(state, 'bot', 'bot_active');

/** Seconds left of the first-response target while a handoff waits; null when nobody is waiting. */
export function waitRemaining(state: State, targetSeconds: number, now: Date): number | null {
  if (state.handoffState !== 'handoff_pending' || !state.handoffRequestedAt) return null;
  const waited = (now.getTime() - state.handoffRequestedAt.getTime()) / 1000;
  return Math.max(0, Math.ceil(targetSeconds - waited));
}
