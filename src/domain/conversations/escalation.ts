/**
 * When the AI hands a conversation to a person by itself: the visitor asks it for one in so many
 * words. Deliberately explicit phrases only, so an ordinary question ("is there a human-readable
 * export?") never silences the AI; the widget's handoff button covers everything else.
 */
const PERSON = String.raw`(?:a |an |the |some |real |live |actual )*(?:human|person|agent|operator|representative|rep|someone|somebody|staff|support team|customer service)`;
const ASKS = [
  new RegExp(String.raw`\b(?:talk|speak|chat|connect|transfer|put)\b[^.?!]{0,20}\b(?:to|with|me to)\s+${PERSON}\b`, 'i'),
  /\b(?:want|need|get me|give me|like)\s+(?:a |an |the |some |real |live |actual )*(?:human|real person|live agent|human agent|agent|operator|representative)\b(?!\s*(?:license|licence|role|job|position|account|api|program))/i,
  // Tested against the trimmed text: `\s*` at both ends and around the optional word backtracked cubically through a run of spaces.
  /^(?:human|agent|operator|representative|real person|live agent)(?:\s*(?:please|pls))?\s*[.!?]*$/i,
];

/** "How do I talk to a human?" asks how it works; the knowledge base (the handoff button) answers that. */
const ASKS_HOW = /^how\b/i;

export const asksForHuman = (text: string): boolean => {
  const trimmed = text.trim();
  return !ASKS_HOW.test(trimmed) && ASKS.some((pattern) => pattern.test(trimmed));
};

/** The `model` of the AI's handoff line: written by Parley, not by a provider. */
export const HANDOFF_MODEL = 'handoff';

/** The AI's last line before it goes quiet: it names the workspace's first-response target. */
export function handoffLine(targetSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(targetSeconds / 60));
  return `I've asked a teammate to join. They usually reply within ${minutes} minute${minutes === 1 ? '' : 's'}, and their answer will appear right here.`;
}
