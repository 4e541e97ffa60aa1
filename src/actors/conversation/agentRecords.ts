import { recordOutcome, recordSuggestion } from '../../domain/assist/aiSuggestions';
import type { SummaryAnswer } from '../../domain/assist/parseSummaryAnswer';
import type { ParsedTagSuggestion } from '../../domain/assist/parseTagAnswer';
import { replaceTagSuggestions } from '../../domain/assist/suggestTags';
import { setConversationTag } from '../../domain/catalogue/conversationTags';
import { revenueChanges, revenueOf, type Revenue, type RevenueChange } from '../../domain/leads/revenue';
import { saveLead as upsertLead, type SavedLead } from '../../domain/leads/saveLead';
import type { SuggestionOutcome } from '../../models';
import { presentSuggestionReady } from '../../presenters/realtimeEvents';
import { userChannel } from '../../realtime/channels';
import type { ConversationActor } from './actor';
import type { Unit } from './record';

// What agents (and the AI assist working for them) record about a conversation beside its thread.
// Slow work (the model calls of the assist) runs before the turn, in the route; a turn only writes,
// so the conversation is never held while a model thinks.

/** One write of the conversation that other agents see at once (`conversation.updated`). */
function recorded<T>(actor: ConversationActor, work: (unit: Unit) => Promise<T>): Promise<T> {
  actor.conversation();
  return actor.record.write(undefined, async (unit) => {
    const value = await work(unit);
    actor.updated(unit);
    return value;
  });
}

/** What the conversation earned; a change that changes nothing writes nothing. */
export async function setRevenue(actor: ConversationActor, change: RevenueChange): Promise<Revenue> {
  const changes = revenueChanges(actor.conversation(), change);
  if (changes) await recorded(actor, async (unit) => void unit.change(changes));
  return revenueOf(actor.conversation());
}

export const saveLead = (actor: ConversationActor): Promise<SavedLead> =>
  recorded(actor, async (unit) => {
    const lead = await upsertLead(unit.conversation, unit.transaction);
    actor.leadSaved(unit, lead);
    return lead;
  });

export async function saveSummary(actor: ConversationActor, { summary, intent }: SummaryAnswer): Promise<{ summaryAt: string }> {
  const summaryAt = new Date();
  await recorded(actor, async (unit) => void unit.change({ summary, summaryAt, ...(intent && { intent }) }));
  return { summaryAt: summaryAt.toISOString() };
}

/** How sure the AI must be of a tag to attach it itself (the chatbot's `auto_actions`). */
export const AUTO_TAG_CONFIDENCE = 0.8;

/**
 * Stores the AI's tag suggestions; with the chatbot's `auto_actions` on, the confident ones are
 * attached at once (tag source `ai`, event `tag_added` source `ai`) and so leave the suggestion list.
 */
export async function replaceSuggestedTags(actor: ConversationActor, suggestions: ParsedTagSuggestion[]): Promise<{ stored: number }> {
  const { auto_actions: autoActions } = await actor.settings();
  return recorded(actor, async (unit) => {
    const stored = await replaceTagSuggestions(unit.conversation, suggestions, unit.transaction);
    const confident = autoActions ? suggestions.filter((suggestion) => suggestion.confidence >= AUTO_TAG_CONFIDENCE) : [];
    for (const { tagId } of confident) {
      if (await setConversationTag(unit.conversation, tagId, { attach: true, source: 'ai' }, unit.transaction)) await unit.addEvent('tag_added', 'ai', null, { tag_id: tagId });
    }
    return { stored };
  });
}

/** Keeps a drafted reply; one the agent did not ask for (`announce`) is sent to them on their own channel once stored. */
export const keepSuggestion = (actor: ConversationActor, userId: number, suggestion: string | null, announce = false): Promise<{ id: number }> =>
  recorded(actor, async (unit) => {
    const id = await recordSuggestion(unit.conversation, userId, suggestion, unit.transaction);
    if (announce && suggestion) unit.emit('suggestion.ready', [userChannel(userId)], () => presentSuggestionReady(unit.conversation.publicId, id, suggestion));
    return { id };
  });

export const suggestionOutcome = (actor: ConversationActor, suggestionId: number, outcome: SuggestionOutcome): Promise<void> =>
  recorded(actor, (unit) => recordOutcome(unit.conversation, suggestionId, outcome, unit.transaction));
