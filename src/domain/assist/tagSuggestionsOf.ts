import { QueryTypes } from 'sequelize';
import { TagSuggestion } from '../../models';

/** An element of the active conversation's `tag_suggestions`. */
export interface TagSuggestionView {
  id: number;
  name: string;
  confidence: number;
  reason: string;
}

/** A suggestion as the SQL below gives it (`real` confidence). */
export interface StoredTagSuggestion {
  id: number;
  name: string;
  confidence: number | string;
  reason: string;
}

/**
 * SQL for the AI's tag suggestions of one conversation as a JSON array, most confident first, leaving
 * out tags an agent or the AI has already attached. `conversation` is SQL naming its internal id (a
 * column or a parameter), found through a workspace-scoped lookup; the open thread reads it inside
 * its own statement.
 */
export const tagSuggestionsJsonSql = (conversation: string) => `COALESCE((
    SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'confidence', s.confidence, 'reason', s.reason) ORDER BY s.confidence DESC, t.name, t.id)
      FROM tag_suggestions s
      JOIN tags t ON t.id = s.tag_id AND t.company_id = s.company_id
     WHERE s.conversation_id = ${conversation}
       AND NOT EXISTS (SELECT 1 FROM conversation_tags ct WHERE ct.conversation_id = s.conversation_id AND ct.tag_id = s.tag_id)), '[]')`;

/** Stored as real; two decimals is all the parser keeps, so float noise never reaches clients. */
export const tagSuggestionView = (row: StoredTagSuggestion): TagSuggestionView => ({
  id: Number(row.id),
  name: row.name,
  confidence: Math.round(Number(row.confidence) * 100) / 100,
  reason: row.reason,
});

/** The AI's tag suggestions for a conversation (its internal id). */
export async function tagSuggestionsOf(conversationId: number): Promise<TagSuggestionView[]> {
  const [row] = await TagSuggestion.sequelize!.query<{ suggestions: StoredTagSuggestion[] }>(`SELECT ${tagSuggestionsJsonSql(':conversationId')} AS suggestions`, {
    replacements: { conversationId },
    type: QueryTypes.SELECT,
  });
  return (row?.suggestions ?? []).map(tagSuggestionView);
}
