import { autostarts, draftsOnOpen } from '../../domain/assist/autostart';
import { suggestReply } from '../../domain/assist/suggestReply';
import { findConversationWithChatbot } from '../../domain/conversations/findConversation';
import type { AuthContext } from '../../http/authenticate';
import type { Chatbot } from '../../models';
import type { SurfaceDeps } from '../endpoint';

/** Drafts running in this process, by agent and conversation: opening a thread twice at once drafts once. */
const drafting = new Set<string>();

/**
 * The chatbot's `copilot_autostart`: an agent opened a conversation that waits for an answer, so a
 * reply is drafted for them without holding the response (one AI call, outside any actor turn), kept
 * through the conversation's actor, and sent to them as `suggestion.ready`. A failure (no allowance
 * left, the provider down) is logged; the agent can still ask for a suggestion themselves.
 */
export function draftOnOpen({ ctx, actors }: SurfaceDeps, { company, user }: AuthContext, publicId: string, chatbot: Pick<Chatbot, 'branding'>): void {
  // Most chatbots leave it off: then opening a thread costs no read for it.
  if (!autostarts(chatbot)) return;
  const key = `${user.id}:${publicId}`;
  if (drafting.has(key)) return;
  drafting.add(key);
  const draft = async () => {
    const conversation = await findConversationWithChatbot(company.id, publicId);
    if (!(await draftsOnOpen(conversation, user.id))) return;
    const { suggestion } = await suggestReply(ctx, { company, userId: user.id, conversation });
    if (suggestion) await actors.ask('conversation', publicId, { type: 'keepSuggestion', userId: user.id, suggestion, announce: true });
  };
  draft()
    .catch((error: unknown) => ctx.logger.warn({ err: error, conversation: publicId, userId: user.id }, 'copilot autostart suggestion failed'))
    .finally(() => drafting.delete(key));
}
