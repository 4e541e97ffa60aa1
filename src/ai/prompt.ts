import type { Chatbot } from '../models';
import type { Passage } from '../domain/knowledge/retrieve';
import type { ChatMessage, ChatRequest } from './providers/types';
import { remembered } from '../remembered';

/** A document a reply drew on, as the widget's `done` event lists it; `url` is "" for documents without an address. */
export interface ReplySource {
  title: string;
  url: string;
}

export interface PromptInput {
  chatbot: Pick<Chatbot, 'name' | 'role' | 'persona' | 'instructions' | 'model'>;
  passages: Passage[];
  /** Earlier turns, oldest first, without the question itself. */
  history: ChatMessage[];
  question: string;
  /** The visitor's language tag as the widget reported it (`fr`, `pt-BR`); unknown for API conversations. */
  language?: string | null;
}

const PASSAGE_BUDGET = 8_000;
const HISTORY_BUDGET = 6_000;
const HISTORY_TURNS = 12;
const MAX_REPLY_TOKENS = 800;

/**
 * The system prompt (who the bot is, the workspace's instructions, the retrieved passages numbered
 * with their titles and addresses) and the recent transcript, each within a character budget so a
 * long conversation or a huge document never overflows a small model's context.
 */
export function buildPrompt({ chatbot, passages, history, question, language }: PromptInput): { request: ChatRequest; sources: ReplySource[] } {
  const used = withinBudget(passages, PASSAGE_BUDGET, (p) => p.content.length);
  const knowledge = used.map((p, i) => `[${i + 1}] ${p.title}${p.url ? ` (${p.url})` : ''}\n${p.content}`).join('\n\n');
  const system = [
    `You are ${chatbot.name}, a ${chatbot.role || 'support assistant'} answering visitors of this website.`,
    chatbot.persona.trim(),
    chatbot.instructions.trim() && `Instructions from the team:\n${chatbot.instructions.trim()}`,
    knowledge
      ? `Answer from the knowledge below. If it does not contain the answer, say so briefly and offer to connect the visitor with a person; never invent facts, prices or policies.\n\nKnowledge:\n${knowledge}`
      : 'No knowledge matched this question. If you cannot answer from the conversation, say so briefly and offer to connect the visitor with a person.',
    languageRule(language),
  ]
    .filter(Boolean)
    .join('\n\n');
  const recent = withinBudget(history.slice(-HISTORY_TURNS).reverse(), HISTORY_BUDGET, (m) => m.content.length).reverse();
  return {
    request: { model: chatbot.model, system, messages: [...recent, { role: 'user', content: question }], maxTokens: MAX_REPLY_TOKENS },
    sources: sourcesOf(used),
  };
}

/**
 * The widget names the visitor's language; what they write still wins, since a German site's visitor
 * may ask in English. Without a known language the model goes by the messages alone.
 */
function languageRule(tag: string | null | undefined): string {
  const name = tag ? languageName(tag) : undefined;
  if (!name) return "Reply in the visitor's language, in plain text, concisely.";
  return `The visitor's language is ${name}, language tag ${tag}: reply in it, unless the visitor writes in another language, then in theirs. Reply in plain text, concisely.`;
}

/** One for the process: building it (ICU's English names) took ~50 us per reply, a look-up ~8 us. */
let languageNames: Intl.DisplayNames | undefined;
/** Tags seen and their names: the widget sends a handful (the browsers' languages). Bounded against made-up tags. */
const namedTags = new Map<string, string | undefined>();
const NAMED_TAGS = 500;

/** `fr-CA` -> "Canadian French"; undefined for a tag that is malformed or names no known language. */
function languageName(tag: string): string | undefined {
  return remembered(namedTags, tag, nameOf, NAMED_TAGS);
}

function nameOf(tag: string): string | undefined {
  try {
    const name = (languageNames ??= new Intl.DisplayNames(['en'], { type: 'language' })).of(tag);
    return name && name !== tag ? name : undefined; // an unknown code comes back as itself
  } catch {
    return undefined;
  }
}

/** Each document once, in rank order. */
export function sourcesOf(passages: Passage[]): ReplySource[] {
  const seen = new Map<string, ReplySource>();
  for (const p of passages) {
    const source = { title: p.sourceTitle, url: p.url ?? '' };
    const key = source.url || `#${p.sourceId}`;
    if (!seen.has(key)) seen.set(key, source);
  }
  return [...seen.values()];
}

/** The leading items whose sizes fit the budget (always at least the first, so one long passage still counts). */
function withinBudget<T>(items: T[], budget: number, size: (item: T) => number): T[] {
  const kept: T[] = [];
  let total = 0;
  for (const item of items) {
    total += size(item);
    if (kept.length && total > budget) break;
    kept.push(item);
  }
  return kept;
}
