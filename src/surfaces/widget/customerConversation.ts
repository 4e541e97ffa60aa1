import type { Request } from 'express';
import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import { verifyIdentity } from '../../domain/conversations/identity';
import { inOpenConversation } from '../../domain/conversations/openConversation';
import { latestCustomerConversation, type VisitorOwner } from '../../domain/conversations/visitorConversations';
import { parse } from '../../http/validate';
import type { Chatbot } from '../../models';
import type { SecretBox } from '../../security/encryption';
import { identityToken } from './schemas';

/** The header the latest-conversation read takes a widget identity token in: like the visitor id, kept out of URLs and logs. */
export const IDENTITY_HEADER = 'X-Identity';

const identityHeader = z.object({ identity: identityToken });

/** The verified `sub` of the identity token in the request's header; undefined without one, 422 `errors.identity` for a bad one. */
export function identityOf(req: Request<Record<string, string>>, chatbot: Chatbot, secrets: SecretBox): string | undefined {
  const token = req.get(IDENTITY_HEADER);
  if (!token) return undefined;
  const { identity } = parse(identityHeader, { identity: token });
  return verifyIdentity(identity, secrets.open(chatbot.identitySecretEncrypted)).sub;
}

/**
 * A verified customer's latest conversation with this chatbot, from whichever device they used, moved
 * to this visitor id (public id); null when they have none. When this visitor id already has an open
 * conversation and the customer's latest is open too, the visitor id's own is the one (one open
 * conversation per visitor): it is answered instead and the other stays where it is.
 */
export async function continueCustomerConversation(actors: Actors, owner: VisitorOwner, sub: string): Promise<string | null> {
  const latest = await latestCustomerConversation(owner.chatbotId, sub);
  if (!latest) return null;
  return inOpenConversation(latest, async (id) => {
    await actors.ask('conversation', id, { type: 'continueOnDevice', ...owner, sub });
    return id;
  });
}
