import { QueryTypes } from 'sequelize';
import { Chatbot, Conversation, ConversationEvent, Lead, Message, Note, PageView, User, Visitor } from '../../models';
import { tagSuggestionsOf, type TagSuggestionView } from '../assist/tagSuggestionsOf';
import { inboxRow, type InboxRow } from './listInbox';

/** How much of a thread the agent app receives at once; older lines stay in the database. */
export const THREAD_MESSAGES = 200;
const JOURNEY_PAGES = 20;

/** Everything the agent app shows beside an open thread, loaded in one round of parallel reads. */
export interface ActiveConversation {
  conversation: Conversation;
  row: InboxRow;
  chatbot: Chatbot;
  visitor: Visitor | null;
  events: ConversationEvent[];
  tags: Array<{ id: number; name: string; color: string; source: string }>;
  tagSuggestions: TagSuggestionView[];
  lead: Lead | null;
  messages: Message[];
  notes: Note[];
  journey: PageView[];
}

export async function loadActiveConversation(conversation: Conversation, userId: number): Promise<ActiveConversation | null> {
  const { id, companyId } = conversation;
  const visitor = await Visitor.findOne({ where: { companyId, visitorKey: conversation.visitorKey } });
  const [row, chatbot, events, tags, tagSuggestions, lead, newest, notes, journey] = await Promise.all([
    inboxRow(companyId, userId, id),
    Chatbot.findByPk(conversation.chatbotId),
    ConversationEvent.findAll({ where: { conversationId: id }, order: [['id', 'ASC']] }),
    Conversation.sequelize!.query<ActiveConversation['tags'][number]>(
      `SELECT t.id, t.name, t.color, ct.source FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
        WHERE ct.conversation_id = $1 ORDER BY ct.created_at, t.id`,
      { bind: [id], type: QueryTypes.SELECT },
    ),
    tagSuggestionsOf(id),
    Lead.findOne({ where: { conversationId: id, companyId } }),
    Message.findAll({ where: { conversationId: id }, order: [['id', 'DESC']], limit: THREAD_MESSAGES }),
    Note.findAll({ where: { conversationId: id }, include: [{ model: User, as: 'author', attributes: ['name'] }], order: [['id', 'ASC']] }),
    visitor ? PageView.findAll({ where: { visitorId: visitor.id }, order: [['viewedAt', 'DESC'], ['id', 'DESC']], limit: JOURNEY_PAGES }) : [],
  ]);
  if (!row || !chatbot) return null;
  return { conversation, row, chatbot, visitor, events, tags, tagSuggestions, lead, messages: newest.reverse(), notes, journey: journey.reverse() };
}
