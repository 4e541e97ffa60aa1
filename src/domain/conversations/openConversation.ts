import { UniqueConstraintError } from 'sequelize';
import { AppError } from '../../errors';

/**
 * A visitor has at most one open (not closed) conversation per chatbot; the partial unique index of
 * this name holds that in the database, also when two nodes race to open one.
 */
export const ONE_OPEN_PER_VISITOR = 'conversations_one_open_per_visitor';

const CODE = 'conversation_open';

/** Whether a write failed because the visitor already has another open conversation with the chatbot. */
export const breaksOneOpenPerVisitor = (error: unknown): boolean =>
  error instanceof UniqueConstraintError && (error.parent as { constraint?: string } | undefined)?.constraint === ONE_OPEN_PER_VISITOR;

/** 409 naming the visitor's open conversation, so a caller can carry on in it instead. */
export const openConversationExists = (conversationId: string) =>
  new AppError(409, CODE, 'This visitor already has an open conversation with this chatbot.', { body: { conversation_id: conversationId } });

/** The open conversation an `openConversationExists` error names (it crosses nodes as a plain AppError). */
export function openConversationOf(error: unknown): string | undefined {
  if (!(error instanceof AppError) || error.code !== CODE) return undefined;
  const id = error.details.body?.conversation_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Sends to `conversationId`; when that would open a second conversation for the visitor (a race with
 * another node, or a message naming a closed conversation), sends once more to the one that is open.
 */
export async function inOpenConversation<T>(conversationId: string, send: (conversationId: string, retry: boolean) => Promise<T>): Promise<T> {
  try {
    return await send(conversationId, false);
  } catch (error) {
    const open = openConversationOf(error);
    if (!open || open === conversationId) throw error;
    return send(open, true);
  }
}
