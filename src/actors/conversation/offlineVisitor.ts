import { visitorBlocked } from '../../domain/conversations/abuse';
import { verifiedDetails } from '../../domain/conversations/identity';
import { followUpsOf } from '../../domain/followup/service';
import { notFound } from '../../errors';
import type { ConversationActor } from './actor';
import type { ConversationView } from './protocol';

// The visitor's side of the offline follow-up: the email they leave after hours, and coming back by
// the mail's link.

type Owner = { chatbotId: number; visitorKey: string };

/**
 * The after-hours form: the visitor's email, where a follow-up goes. A verified identity's email is
 * kept (anyone can type someone else's address); the same address again writes nothing.
 */
export async function leaveEmail(actor: ConversationActor, owner: Owner, email: string): Promise<ConversationView> {
  const conversation = actor.conversation(owner);
  if (conversation.blocked) throw visitorBlocked();
  if (verifiedDetails(conversation.identity).email || conversation.visitorEmail === email) return actor.view();
  await actor.record.write(undefined, async (unit) => {
    await unit.addEvent('email_left', 'visitor');
    unit.change({ visitorEmail: email });
    actor.updated(unit);
  });
  return actor.view();
}

/**
 * A follow-up mail's link, verified by the route, was opened on a device: the conversation moves to
 * that device's visitor id (as a verified customer's does), so its state reads, socket and replies
 * work there. 404 unless the mail was this conversation's and the chatbot is the link's.
 */
export async function continueByLink(actor: ConversationActor, device: Owner, followupId: number): Promise<ConversationView> {
  const conversation = actor.conversation();
  if (conversation.chatbotId !== device.chatbotId || !(await followUpsOf(actor.deps.ctx).records.belongsTo(followupId, conversation.id))) throw notFound('Conversation');
  if (conversation.blocked) throw visitorBlocked();
  if (conversation.visitorKey !== device.visitorKey) {
    await actor.record.write(undefined, async (unit) => {
      await unit.addEvent('continued_by_email', 'visitor');
      unit.change({ visitorKey: device.visitorKey });
      actor.updated(unit);
    });
  }
  return actor.view();
}
