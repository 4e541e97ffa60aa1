import { QueryTypes, type Transaction } from 'sequelize';
import { Conversation, type TagSource } from '../../models';

/**
 * Attaches a catalogue tag to the conversation (or detaches it), inside the conversation's write.
 * True only when something changed, so a repeat writes no second event.
 */
export async function setConversationTag(
  conversation: Pick<Conversation, 'id' | 'companyId'>,
  tagId: number,
  change: { attach: true; source: TagSource } | { attach: false },
  transaction: Transaction,
): Promise<boolean> {
  const bind = [conversation.id, tagId, conversation.companyId];
  const rows = await Conversation.sequelize!.query<{ tag_id: number }>(
    change.attach
      ? `INSERT INTO conversation_tags (conversation_id, tag_id, company_id, source) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING tag_id`
      : 'DELETE FROM conversation_tags WHERE conversation_id = $1 AND tag_id = $2 AND company_id = $3 RETURNING tag_id',
    { bind: change.attach ? [...bind, change.source] : bind, type: QueryTypes.SELECT, transaction },
  );
  return rows.length > 0;
}
