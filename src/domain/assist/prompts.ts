import type { Chatbot } from '../../models';
import type { StripeSubscription } from '../integrations/stripe';
import type { Passage } from '../knowledge/retrieve';
import type { CustomerProfile } from './customerProfile';
import { INTENTS } from './parseSummaryAnswer';

// The prompts of the agent's AI assist. Each states what to produce and that nothing else may be
// around it, since the answer goes to an agent's composer (or a parser) as it is.

const KNOWLEDGE_CHARS = 6_000;

export interface SuggestPromptInput {
  chatbot: Pick<Chatbot, 'name' | 'role' | 'instructions'>;
  passages: Passage[];
  /** What the agent has typed so far, if anything. */
  draft: string | null;
  customer: CustomerProfile | null;
}

/** System prompt for a reply suggestion; the transcript follows as chat turns and ends with the visitor. */
export function suggestSystem({ chatbot, passages, draft, customer }: SuggestPromptInput): string {
  const knowledge = knowledgeBlock(passages);
  return [
    `You draft the next reply for a human support agent who has joined a website chat. The website's AI assistant, ${chatbot.name} (${chatbot.role || 'support assistant'}), may have answered earlier; its turns and the agents' turns are yours in this transcript.`,
    'Write the one reply the agent should send now: answer what the visitor still needs, in the visitor\'s language, in plain text, briefly and warmly. No greeting unless the conversation has just started, no placeholders, no signature.',
    'Use only facts from the knowledge below or from the conversation. When they do not hold the answer, ask a clarifying question or say the agent will check; never invent facts, prices or policies.',
    chatbot.instructions.trim() && `Instructions from the team:\n${chatbot.instructions.trim()}`,
    knowledge ? `Knowledge:\n${knowledge}` : 'No knowledge matched this conversation.',
    customer && customerBlock(customer),
    draft && `The agent has started this draft; keep its intent and build on it:\n${draft}`,
    'Answer with the reply text only.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** What each enhance mode asks for; the keys are the modes the enhance route accepts. */
const ENHANCE_INSTRUCTIONS = {
  fix: 'Correct spelling, grammar and punctuation only. Do not change the wording, tone or length otherwise.',
  professional: 'Rewrite it in a professional, courteous tone.',
  friendly: 'Rewrite it in a warm, friendly tone while keeping it clear.',
  concise: 'Make it shorter and more direct; drop filler and repetition.',
  expand: 'Expand it into a fuller, more helpful reply, without adding facts, promises or details that are not in it.',
} as const;

export type EnhanceMode = keyof typeof ENHANCE_INSTRUCTIONS;
export const ENHANCE_MODES = Object.keys(ENHANCE_INSTRUCTIONS) as [EnhanceMode, ...EnhanceMode[]];

/** System prompt for enhancing a draft; the draft itself is the user turn. */
export function enhanceSystem(mode: EnhanceMode): string {
  return [
    'You edit a message a support agent is about to send to a customer in a website chat.',
    ENHANCE_INSTRUCTIONS[mode],
    'Keep its meaning, and keep names, numbers, links and codes exactly as written. Keep the language of the message. Stay under 4000 characters.',
    'Answer with the edited message only: no preface, no quotes, no explanation. If nothing needs to change, answer with the message unchanged.',
  ].join('\n\n');
}

export const SUMMARY_SYSTEM = [
  'You summarise a website support chat for a human agent who is about to handle it.',
  'State what the visitor wants, what has already been answered or done, and what is still open, in two to four short sentences of plain text, in the language of the conversation.',
  'Name the visitor and quote order numbers, amounts or dates only when the conversation gives them.',
  // The intent rides on the same call (no second request); parseSummaryAnswer takes the line back out.
  `Then, on a last line of its own, write "Intent: " and the one word from this list that best names what the visitor wants: ${INTENTS.join(', ')}. Answer with the summary and that line only.`,
].join('\n\n');

export const summaryRequest = (transcript: string, customer: CustomerProfile | null): string =>
  [customer && customerBlock(customer), `Transcript:\n${transcript}`].filter(Boolean).join('\n\n');

/**
 * What is known about the customer, as facts the model may use: the verified identity, the pre-chat
 * answers, their store orders and their payments. Only the sources that know something are listed.
 */
function customerBlock(customer: CustomerProfile): string {
  const { identity, prechat, orders, payments } = customer;
  const claims = Object.entries(identity).map(([claim, value]) => `${claim} ${value}`);
  const lines = [
    claims.length && `Signed in (verified): ${claims.join(', ')}`,
    prechat.length && `Pre-chat form: ${prechat.map((answer) => `${answer.field} ${answer.value}`).join(', ')}`,
    orders.length && `Store orders, newest first:\n${orders.map((order) => `- ${order.name}: ${order.total_price} ${order.currency}, ${order.financial_status ?? 'pending'}, ${order.fulfillment_status ?? 'unfulfilled'}, placed ${order.created_at.slice(0, 10)}`).join('\n')}`,
    payments?.found &&
      `Payments (Stripe customer ${payments.customer.name ?? payments.customer.email ?? payments.customer.id}): ${payments.subscriptions.length ? payments.subscriptions.map(subscriptionLine).join('; ') : 'no subscriptions'}`,
  ];
  return `Customer context (facts about this visitor; use them where they help, never invent more):\n${lines.filter(Boolean).join('\n')}`;
}

function subscriptionLine(subscription: StripeSubscription): string {
  const price = subscription.items?.data[0]?.price;
  const product = subscription.plan?.product ?? price?.product;
  const name = subscription.plan?.nickname || price?.nickname || (typeof product === 'object' && product?.name) || 'subscription';
  return `${name} (${subscription.status})`;
}

export interface CatalogueTag {
  id: number;
  name: string;
}

/** System prompt for tag suggestions: choose from the workspace's catalogue, answer strict JSON. */
export function taggingSystem(catalogue: CatalogueTag[]): string {
  return [
    'You label website support chats with the workspace\'s tags. Choose the tags from this list that clearly fit the conversation:',
    catalogue.map((tag) => `- id ${tag.id}: ${tag.name}`).join('\n'),
    'Answer with JSON only, in exactly this form: {"tags": [{"id": <tag id from the list>, "confidence": <number from 0 to 1>, "reason": "<one short sentence>"}]}',
    'Use only ids from the list, at most five tags, the best first. When no tag fits, answer {"tags": []}.',
  ].join('\n\n');
}

export function taggingRequest(transcript: string, summary: string | null): string {
  return [summary && `Summary:\n${summary}`, `Transcript:\n${transcript}`].filter(Boolean).join('\n\n');
}

/** The passages, numbered with their titles and addresses, as many as fit the budget (at least one). */
function knowledgeBlock(passages: Passage[]): string {
  const blocks: string[] = [];
  let total = 0;
  for (const [index, passage] of passages.entries()) {
    const block = `[${index + 1}] ${passage.title}${passage.url ? ` (${passage.url})` : ''}\n${passage.content}`;
    total += block.length;
    if (blocks.length && total > KNOWLEDGE_CHARS) break;
    blocks.push(block);
  }
  return blocks.join('\n\n');
}
