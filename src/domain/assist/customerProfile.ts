import type { AppContext } from '../../context';
import type { Conversation } from '../../models';
import { settingsOf } from '../chatbots/flags';
import type { ConversationWithChatbot } from '../conversations/findConversation';
import { verifiedDetails } from '../conversations/identity';
import { customerContext, emailOf, type StripeLookup } from '../integrations/customerContext';
import type { ShopifyOrder } from '../integrations/shopify';

/** What an assist prompt may be told about the customer (the chatbot's `copilot_use_profile`). */
export interface CustomerProfile {
  /** Claims of the visitor's verified identity token. */
  identity: { name?: string; email?: string; phone?: string };
  prechat: Conversation['prechat'];
  orders: ShopifyOrder[];
  payments: StripeLookup | null;
}

/**
 * The customer context for the assist prompts of this conversation, or null when the chatbot's
 * `copilot_use_profile` is off (the prompt then sees the transcript only) or nothing is known. Orders
 * and payments come only for a verified email, as in the agent's customer context: a typed email
 * could be anyone's.
 */
export async function customerProfile(ctx: AppContext, conversation: ConversationWithChatbot): Promise<CustomerProfile | null> {
  if (!settingsOf(conversation.chatbot).copilot_use_profile) return null;
  const services = await customerContext(ctx, conversation.companyId, emailOf(conversation));
  const profile: CustomerProfile = {
    identity: verifiedDetails(conversation.identity),
    prechat: conversation.prechat,
    orders: services.shopify.orders,
    payments: services.stripe.lookup,
  };
  const known = Object.keys(profile.identity).length || profile.prechat.length || profile.orders.length || profile.payments?.found;
  return known ? profile : null;
}
