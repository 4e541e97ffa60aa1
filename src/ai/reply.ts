import type { ProviderSlug } from '../../config/providers';
import { matchedWords } from '../domain/knowledge/matches';
import type { Passage } from '../domain/knowledge/retrieve';
import { retrieveByMeaning } from '../domain/knowledge/meaning';
import type { Chatbot } from '../models';
import { resolveEndpoint, type EndpointDeps } from './endpoint';
import { EXTRACTIVE_PASSAGES, extractiveAnswer } from './extractive';
import { buildPrompt, sourcesOf, type ReplySource } from './prompt';
import { chat } from './providers';
import type { ChatMessage, ChatOptions, Completion, ProviderEndpoint } from './providers/types';

export interface ReplyInput extends ChatOptions {
  chatbot: Chatbot;
  question: string;
  /** Earlier turns of the conversation, oldest first (or their read, still under way). */
  history: ChatMessage[] | Promise<ChatMessage[]>;
  /** The visitor's language tag, when the widget told it. */
  language?: string | null;
  /** The endpoint and passages, when the caller started reading them earlier (`prepareReply`). */
  prepared?: Promise<PreparedReply>;
}

/** What a reply needs before its provider call, besides the conversation: where the call goes, and the knowledge it draws on. */
export interface PreparedReply {
  endpoint: ProviderEndpoint | null;
  passages: Passage[];
}

export interface GeneratedReply extends Completion {
  provider: ProviderSlug;
  /** The documents the reply drew on, for the widget's `done` event. */
  sources: ReplySource[];
}

const PASSAGES = 5;

/**
 * One AI reply: retrieve the chatbot's best passages (by meaning too where the provider offers
 * embeddings), then ask its provider (streaming when `onDelta` is given) with the workspace's key or
 * the platform's; with no key at all, answer extractively. Throws ProviderError when the provider
 * fails. Recording usage is the caller's, in the transaction that stores the reply
 * (domain/usage/recordUsage).
 */
export async function generateReply(deps: EndpointDeps, input: ReplyInput): Promise<GeneratedReply> {
  const { chatbot, question, language, signal, onDelta } = input;
  // Independent reads, side by side: the time before the provider call is the visitor's wait for the first token.
  const [{ endpoint, passages }, history] = await Promise.all([input.prepared ?? prepareReply(deps, chatbot, question), input.history]);
  if (!endpoint) {
    const matched = await matchedWords(chatbot.id, question, passages.slice(0, EXTRACTIVE_PASSAGES));
    const { used, ...answer } = await extractiveAnswer(question, passages, { signal, onDelta }, matched);
    return { ...answer, provider: chatbot.provider, sources: sourcesOf(used) };
  }
  const { request, sources } = buildPrompt({ chatbot, passages, history, question, language });
  const completion = await chat(endpoint, request, { signal, onDelta });
  return { ...completion, provider: chatbot.provider, sources };
}

/**
 * The reads before a reply's provider call that depend only on the chatbot and the question: the
 * workspace's key (or the platform's) and the passages retrieved with it. A turn may start them
 * before it knows the AI will answer (they write nothing), so they run beside its own reads.
 * `epochRead`: the settings epoch the request read already (the stream route's), so the remembered
 * key is checked against it without another Redis read.
 */
export async function prepareReply(deps: EndpointDeps, chatbot: Chatbot, question: string, epochRead?: string): Promise<PreparedReply> {
  const endpoint = await resolveEndpoint(deps, chatbot.companyId, chatbot.provider, epochRead);
  return { endpoint, passages: await retrieveByMeaning(deps, endpoint, chatbot.id, question, PASSAGES) };
}
