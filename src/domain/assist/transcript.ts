import type { ChatMessage } from '../../ai/providers/types';
import { Message, type Conversation } from '../../models';

export type Speaker = 'visitor' | 'assistant' | 'agent';

export interface Turn {
  role: Speaker;
  content: string;
}

export interface Window {
  /** Most messages read, newest first. */
  turns: number;
  /** Most characters kept; the newest turns win, and the newest one always counts. */
  chars: number;
}

/** Who takes part in the exchange; system lines are not part of it. */
export const SPEAKERS: Speaker[] = ['visitor', 'assistant', 'agent'];
/** One pasted log must not crowd the rest of the conversation out of the window. */
const TURN_CHARS = 2_000;
const LABELS: Record<Speaker, string> = { visitor: 'Visitor', assistant: 'AI assistant', agent: 'Agent' };

/** The latest exchange between visitor, AI and agents, oldest first; system messages are not part of it. */
export async function recentTurns(conversation: Pick<Conversation, 'id' | 'companyId'>, window: Window): Promise<Turn[]> {
  const rows = await Message.findAll({
    where: { companyId: conversation.companyId, conversationId: conversation.id, role: SPEAKERS },
    order: [['id', 'DESC']],
    limit: window.turns,
    attributes: ['role', 'content'],
  });
  const kept: Turn[] = [];
  let total = 0;
  for (const row of rows) {
    const content = clip(row.content.trim());
    if (!content) continue;
    total += content.length;
    if (kept.length && total > window.chars) break;
    kept.push({ role: row.role as Speaker, content });
  }
  return kept.reverse();
}

/** Whether the visitor spoke last: something is waiting for an answer. */
export const awaitsAnswer = (turns: Turn[]): boolean => turns.at(-1)?.role === 'visitor';

/** The visitor's messages since the last answer, oldest first. */
export function unanswered(turns: Turn[]): Turn[] {
  const lastAnswer = turns.findLastIndex((turn) => turn.role !== 'visitor');
  return turns.slice(lastAnswer + 1);
}

/**
 * The exchange as chat turns: the visitor is the user, the AI and the agents speak as the assistant.
 * Consecutive turns of one side are joined, since some providers refuse two turns in a row from one role.
 */
export function asChatMessages(turns: Turn[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of turns) {
    const role = turn.role === 'visitor' ? 'user' : 'assistant';
    const last = messages.at(-1);
    if (last?.role === role) last.content += `\n\n${turn.content}`;
    else messages.push({ role, content: turn.content });
  }
  return messages;
}

/** The exchange as labelled lines, for prompts that need to tell the AI and human agents apart. */
export const asTranscript = (turns: Turn[]): string => turns.map((turn) => `${LABELS[turn.role]}: ${turn.content}`).join('\n');

function clip(text: string): string {
  return text.length > TURN_CHARS ? `${text.slice(0, TURN_CHARS)}…` : text;
}
