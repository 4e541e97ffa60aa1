import { capturedContact } from '../../domain/leads/capturedContact';
import { composeFollowUp } from '../../domain/followup/compose';
import { SEND_DEADLINE_MS, permanentFailure } from '../../domain/followup/mailer';
import type { FollowUpRow } from '../../domain/followup/records';
import { continueUrl, followUpsOf } from '../../domain/followup/service';
import type { ConversationActor } from './actor';

// The offline follow-up (docs/routing.md "Offline follow-up by email"): an agent line the visitor has
// not received after the workspace's delay is emailed, once, to the email the visitor left, with a
// link back to the conversation. Decided by a durable reminder on this actor, so a failover does not
// lose it; the mail's row is written before it is sent and its sender holds a lease, so a sender
// killed mid-send is replaced (once its lease is over) by one that sends the same mail, never a second.

/** Longer than any send can last (the mailer destroys its socket at SEND_DEADLINE_MS). */
export const LEASE_MS = SEND_DEADLINE_MS + 10_000;
/** Waits after a refused or failed send; after the last one the mail is given up. */
const RETRY_DELAYS_MS = [60_000, 10 * 60_000, 60 * 60_000];

/** An agent line waits for the visitor: check in `delay` whether it reached them. One reminder per line, so none replaces another. */
export async function armFollowUp(actor: ConversationActor, messageId: number): Promise<void> {
  const followUps = followUpsOf(actor.deps.ctx);
  if (!followUps.mailer) return;
  await actor.env
    .remind({ type: 'followUpCheck' }, { key: `followup:${messageId}`, delayMs: followUps.delayMs })
    .catch((error: unknown) => actor.env.logger.warn({ err: error, conversation: actor.id }, 'could not schedule the offline follow-up'));
}

/**
 * Due: a mail not sent yet goes out first (a retry, or one whose sender died); otherwise the agent
 * lines the visitor has not received and no mail carried become one mail, when the oldest of them has
 * waited the whole delay and the visitor left an email.
 */
export async function followUpCheck(actor: ConversationActor): Promise<void> {
  const conversation = actor.record.row;
  const { records, mailer, delayMs } = followUpsOf(actor.deps.ctx);
  if (!conversation || !mailer) return;
  // Lines after it wait for it (their own reminders may have run meanwhile, so look on once it is out).
  const pending = await records.pending(conversation.id);
  if (pending && !(await send(actor, pending))) return;
  const lines = await records.unmailedLines(conversation.id);
  if (!lines.length || Date.now() - lines[0]!.at.getTime() < delayMs) return;
  const recipient = capturedContact(conversation).email;
  if (!recipient) return;
  await send(actor, await records.create({ companyId: conversation.companyId, conversationId: conversation.id, recipient, lines }));
}

/** Sends the mail under this sender's lease (true once sent); anyone else's lease means "later", never "at once". */
async function send(actor: ConversationActor, row: FollowUpRow): Promise<boolean> {
  const { records, mailer, links, appUrl } = followUpsOf(actor.deps.ctx);
  const claimed = await records.claim(row.id, LEASE_MS);
  if (!claimed) {
    // Another sender holds it (a dying owner's lease): look again once that lease is over.
    const left = await records.leaseLeftMs(row.id);
    if (left !== null) await retryAt(actor, row, left + 1_000);
    return false;
  }
  const conversation = actor.conversation();
  const chatbot = await actor.chatbot();
  const mail = composeFollowUp({
    to: claimed.recipient,
    workspace: chatbot.company.name,
    chatbot: chatbot.name,
    lines: await records.linesOf(conversation.id, claimed),
    link: continueUrl(appUrl, chatbot.publicKey, links.sign(conversation.publicId, claimed.id)),
    mailId: claimed.mailId,
    host: new URL(appUrl).hostname,
  });
  try {
    await mailer!.send(mail);
  } catch (error) {
    const delay = RETRY_DELAYS_MS[claimed.attempts - 1];
    const final = delay === undefined || permanentFailure(error);
    await records.markFailed(claimed.id, error instanceof Error ? error.message : String(error), final);
    actor.env.logger.warn({ err: error, conversation: actor.id, followup: claimed.id, final }, 'the offline follow-up mail was not sent');
    if (!final) await retryAt(actor, claimed, delay);
    return false;
  }
  // Between the server's acceptance and this mark lies the one window where a death sends the mail twice (docs/routing.md).
  await records.markSent(claimed.id);
  return true;
}

/**
 * A reminder keyed by the mail and its attempt count: never the key of the reminder being delivered
 * now (a running reminder cannot be replaced, so reusing its key would drop the new one).
 */
const retryAt = (actor: ConversationActor, row: FollowUpRow, delayMs: number) =>
  actor.env.remind({ type: 'followUpCheck' }, { key: `followup-retry:${row.id}:${row.attempts}`, delayMs: Math.max(0, delayMs) });
