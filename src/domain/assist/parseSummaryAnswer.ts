/** What the visitor wants, as the summary call names it (docs/api.md "Inbox"). */
export const INTENTS = ['question', 'purchase', 'support', 'billing', 'complaint', 'cancellation', 'feedback', 'other'] as const;
export type Intent = (typeof INTENTS)[number];

export interface SummaryAnswer {
  summary: string;
  /** Null when the answer names no intent at all: the one stored before stays. */
  intent: Intent | null;
}

// "Intent: billing", "**Intent:** Billing.", "- intent: billing": a line of its own, however decorated.
const INTENT_LINE = /^[\s*_#>`-]*intent[\s*_`]*[:：]\s*(.*)$/i;
const INTENT_WORD = new RegExp(`\\b(${INTENTS.join('|')})\\b`, 'i');

/**
 * Splits the summary call's answer into the summary and the intent line the prompt asks for last,
 * without trusting the model to follow the form: the line is found wherever it stands, decorated or
 * not, and removed from the summary; a named intent outside the list counts as `other`.
 */
export function parseSummaryAnswer(answer: string): SummaryAnswer {
  let intent: Intent | null = null;
  const kept: string[] = [];
  for (const line of answer.split('\n')) {
    const stated = INTENT_LINE.exec(line);
    if (!stated) kept.push(line);
    else intent = intentOf(stated[1]!) ?? intent;
  }
  return { summary: kept.join('\n').trim(), intent };
}

function intentOf(value: string): Intent | null {
  if (!value.replace(/[\s*_`.]/g, '')) return null;
  const word = INTENT_WORD.exec(value)?.[1]?.toLowerCase();
  return (word as Intent | undefined) ?? 'other';
}
