import type { Request } from 'express';
import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import type { VisitorOwner } from '../../domain/conversations/visitorConversations';
import type { FollowUpLinks } from '../../domain/followup/link';
import { validationFailed } from '../../errors';
import { parse } from '../../http/validate';
import { continueToken } from './schemas';

/** The header the latest-conversation read takes a follow-up link's token in (the page has it in its URL fragment, never in a URL sent to a server). */
export const CONTINUE_HEADER = 'X-Continue';

const continueHeader = z.object({ continue: continueToken });

/**
 * A follow-up mail's link opened on this device: verified (signature in constant time, then expiry),
 * its conversation moved to this visitor id; the conversation's public id. Undefined without the
 * header; 422 `errors.continue` for a link that is forged, damaged or expired.
 */
export async function continueByLink(req: Request<Record<string, string>>, links: FollowUpLinks, actors: Actors, owner: VisitorOwner): Promise<string | undefined> {
  const token = req.get(CONTINUE_HEADER);
  if (!token) return undefined;
  const parsed = parse(continueHeader, { continue: token });
  const check = links.verify(parsed.continue);
  if (!check.ok) throw validationFailed({ continue: [check.reason === 'expired' ? 'The link has expired.' : 'The link is not valid.'] });
  const { conversationId, followupId } = check.claims;
  await actors.ask('conversation', conversationId, { type: 'continueByLink', chatbotId: owner.chatbotId, visitorKey: owner.visitorKey, followupId });
  return conversationId;
}
