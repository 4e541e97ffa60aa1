import { QueryTypes } from 'sequelize';
import { TagSuggestion } from '../../models';

/** An element of the active conversation's `tag_suggestions`. */
export interface TagSuggestionView {
  id: number;
  name: string;
  confidence: number;
  reason: string;
}

/**
 * The AI's tag suggestions for a conversation (its internal id, found through a workspace-scoped
 * lookup), most confident first, leaving out tags an agent or the AI has already attached.
 */
export async function tagSuggestionsOf(conversationId: number): Promise<TagSuggestionView[]> {
  const rows = await TagSuggestion.sequelize!.query<{ id: number; name: string; confidence: number | string; reason: string }>(
    `SELECT t.id, t.name, s.confidence, s.reason
       FROM tag_suggestions s
       JOIN tags t ON t.id = s.tag_id AND t.company_id = s.company_id
      WHERE s.conversation_id = :conversationId
        AND NOT EXISTS (SELECT 1 FROM conversation_tags ct WHERE ct.conversation_id = s.conversation_id AND ct.tag_id = s.tag_id)
      ORDER BY s.confidence DESC, t.name, t.id`,
    { replacements: { conversationId }, type: QueryTypes.SELECT },
  );
  // Stored as real; two decimals is all the parser keeps, so float noise never reaches clients.
  return rows.map((row) => ({ id: Number(row.id), name: row.name, confidence: Math.round(Number(row.confidence) * 100) / 100, reason: row.reason }));
}
