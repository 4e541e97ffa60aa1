import { createWorkspace } from '../../src/domain/accounts/createWorkspace';
import { createChatbot } from '../../src/domain/chatbots/createChatbot';
import { updateChatbot } from '../../src/domain/chatbots/updateChatbot';
import type { AppContext } from '../../src/context';
import type { Chatbot } from '../../src/models';

/**
 * Synthetic help-centre text with a realistic word distribution: a few hundred common support words
 * and a long tail of rarer ones, drawn Zipf-like, so common query words match many passages (the
 * hard case for full-text ranking) while rare ones match few. Deterministic for a given seed.
 */
const COMMON = `account order refund payment shipping delivery return password email login invoice subscription plan
price discount coupon cart checkout card bank transfer address country warehouse courier tracking parcel package box
size colour color product stock item warranty repair support agent chat phone hours weekend holiday store branch
app mobile android iphone browser update install settings profile privacy data export delete cancel change upgrade
downgrade trial team member invite role admin owner permission report analytics dashboard widget website page link
button screen error message notification alert reminder schedule booking appointment calendar time zone language
currency tax receipt document file upload download limit quota storage backup security verification code device
session token integration api webhook key secret sync import customer client partner vendor supplier contract
policy terms condition fee charge cost free paid monthly yearly annual week day month year minute hour business`
  .split(/\s+/)
  .filter(Boolean);

const STOP_WORDS = ['the', 'to', 'and', 'of', 'your', 'is', 'for', 'with'];

export class Corpus {
  private state: number;
  private readonly vocabulary: string[];

  constructor(seed = 42, rareWords = 20_000) {
    this.state = seed;
    this.vocabulary = [...COMMON, ...Array.from({ length: rareWords }, (_, i) => this.pseudoWord(i))];
  }

  /** One word, Zipf-like: rank r is drawn with probability ~ 1/r. */
  word(): string {
    const rank = Math.floor(Math.exp(this.random() * Math.log(this.vocabulary.length)));
    return this.vocabulary[Math.min(rank, this.vocabulary.length - 1)]!;
  }

  sentence(words = 8 + Math.floor(this.random() * 12)): string {
    const text = Array.from({ length: words }, (_, i) => (i % 3 === 2 ? STOP_WORDS[i % STOP_WORDS.length] : this.word())).join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  }

  /** A markdown document of about `chars` characters: headings every few paragraphs. */
  document(chars: number): string {
    const parts: string[] = [];
    let length = 0;
    for (let i = 0; length < chars; i++) {
      const part = i % 6 === 0 ? `## ${this.word()} ${this.word()}` : Array.from({ length: 3 + (i % 4) }, () => this.sentence()).join(' ');
      parts.push(part);
      length += part.length + 2;
    }
    return parts.join('\n\n').slice(0, chars);
  }

  /** A visitor-style question: a few content words among stop words. */
  question(): string {
    return `How do I ${this.word()} my ${this.word()} ${this.word()} with the ${this.word()}?`;
  }

  private random(): number {
    // mulberry32: small, fast, deterministic.
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private pseudoWord(i: number): string {
    const syllables = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'quin', 'dar', 'sel', 'por', 'nu', 'bex'];
    let word = '';
    for (let n = i + 7; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
    return word;
  }
}

/**
 * A workspace on the unlimited plan with one chatbot, made through the domain like any tenant. Its
 * language is English: the synthetic text above is English around made-up words, which a language
 * detector would take for anything, and the figures stay comparable with runs from before languages.
 */
export async function benchChatbot(ctx: AppContext, name: string): Promise<Chatbot> {
  const { company } = await createWorkspace({ name, plan: 'enterprise' });
  const { chatbot } = await createChatbot(company, { name }, ctx.secrets);
  await updateChatbot(chatbot, { branding: { language: 'en' } }, ctx.secrets);
  return chatbot;
}
