import { Op, type Transaction } from 'sequelize';
import type { EndpointDeps } from '../../ai/endpoint';
import { AppError } from '../../errors';
import { Company, Conversation, ConversationTag, Tag, TagSuggestion } from '../../models';
import { callModel, endpointFor } from './callModel';
import { parseTagAnswer, type ParsedTagSuggestion } from './parseTagAnswer';
import { taggingRequest, taggingSystem, type CatalogueTag } from './prompts';
import { asTranscript, recentTurns } from './transcript';

export { tagSuggestionsOf, type TagSuggestionView } from './tagSuggestionsOf';

const WINDOW = { turns: 40, chars: 10_000 };
/** Bounds the prompt for a workspace with a huge catalogue. */
const CATALOGUE_LIMIT = 200;
const MAX_TOKENS = 400;

/**
 * Asks the chatbot's model which of the workspace's tags fit the conversation; the caller stores the
 * answer through the conversation's actor (`replaceTagSuggestions`). Only tags not already attached are
 * offered. One AI call (usage kind `tagging`, counted against the allowance). Returns null, without
 * a call, when there is nothing to tag (no unattached tags, no visitor message), no provider key,
 * or the allowance is spent; null too when the answer holds no readable tag list, which keeps the
 * earlier suggestions. Provider failures are thrown (502 ProviderError).
 */
export async function suggestTags(deps: EndpointDeps, conversationId: number, options: { userId?: number | null } = {}): Promise<ParsedTagSuggestion[] | null> {
  const conversation = await Conversation.findByPk(conversationId, { include: [{ association: 'chatbot', required: true }] });
  const chatbot = conversation?.chatbot;
  if (!conversation || !chatbot) return null;
  const catalogue = await unattachedTags(conversation);
  if (!catalogue.length) return null;
  const turns = await recentTurns(conversation, WINDOW);
  if (!turns.some((turn) => turn.role === 'visitor')) return null;
  const endpoint = await endpointFor(deps, chatbot);
  const company = endpoint && (await Company.findByPk(conversation.companyId, { attributes: ['id', 'plan'] }));
  if (!endpoint || !company) return null;

  let answer: string;
  try {
    const completion = await callModel(deps, endpoint, {
      company,
      chatbot,
      conversationId: conversation.id,
      userId: options.userId ?? null,
      kind: 'tagging',
      request: {
        system: taggingSystem(catalogue),
        messages: [{ role: 'user', content: taggingRequest(asTranscript(turns), conversation.summary) }],
        maxTokens: MAX_TOKENS,
        temperature: 0,
      },
    });
    answer = completion.text;
  } catch (error) {
    // Tagging is a by-product: a spent allowance skips it instead of refusing anything.
    if (error instanceof AppError && error.code === 'limit_reached') return null;
    throw error;
  }

  const parsed = parseTagAnswer(answer, catalogue);
  if (!parsed) {
    deps.logger.warn({ conversationId: conversation.id, provider: chatbot.provider, model: chatbot.model }, 'tag suggestion answer was not a tag list');
    return null;
  }
  return parsed;
}

async function unattachedTags(conversation: Conversation): Promise<CatalogueTag[]> {
  const { id: conversationId, companyId } = conversation;
  const attached = (await ConversationTag.findAll({ where: { companyId, conversationId }, attributes: ['tagId'] })).map((row) => row.tagId);
  const tags = await Tag.findAll({
    where: { companyId, ...(attached.length ? { id: { [Op.notIn]: attached } } : {}) },
    attributes: ['id', 'name'],
    order: [['name', 'ASC'], ['id', 'ASC']],
    limit: CATALOGUE_LIMIT,
  });
  return tags.map(({ id, name }) => ({ id, name }));
}

/**
 * Replaces the conversation's suggestions with the new set, inside the conversation's write. Upserting
 * on (conversation, tag) rather than deleting everything first keeps the unique key satisfied even
 * against a write of an earlier owner.
 */
export async function replaceTagSuggestions(conversation: Pick<Conversation, 'id' | 'companyId'>, parsed: ParsedTagSuggestion[], transaction: Transaction): Promise<number> {
  const { id: conversationId, companyId } = conversation;
  const tagIds = parsed.map((suggestion) => suggestion.tagId);
  await TagSuggestion.destroy({ where: { companyId, conversationId, ...(tagIds.length ? { tagId: { [Op.notIn]: tagIds } } : {}) }, transaction });
  if (!parsed.length) return 0;
  const stored = await TagSuggestion.bulkCreate(
    parsed.map((suggestion) => ({ companyId, conversationId, ...suggestion, createdAt: new Date() })),
    { conflictAttributes: ['conversationId', 'tagId'], updateOnDuplicate: ['confidence', 'reason', 'createdAt'], transaction },
  );
  return stored.length;
}
