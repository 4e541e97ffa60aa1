import type { AppContext } from '../../context';
import { KnowledgeSource, type Chatbot } from '../../models';
import { clean } from './chunking';

export type NewSource =
  | { type: 'text'; title?: string; content: string }
  | { type: 'qa'; title?: string; question: string; answer: string }
  | { type: 'url'; title?: string; sourceUrl: string };

/** A title when the caller gave none: the question for Q&A, the address for a website, a dated one for text. */
export function defaultTitle(source: NewSource, now = new Date()): string {
  switch (source.type) {
    case 'qa':
      return source.question;
    case 'url':
      return source.sourceUrl;
    case 'text':
      return `Text document ${now.toISOString().slice(0, 10)}`;
  }
}

/** Saves a source as given (NULs and control characters removed), in the status the caller starts it in. */
export function saveSource(chatbot: Chatbot, source: NewSource, status: 'pending' | 'processing'): Promise<KnowledgeSource> {
  const title = (source.title?.trim() || defaultTitle(source)).slice(0, 255);
  return KnowledgeSource.create({
    companyId: chatbot.companyId,
    chatbotId: chatbot.id,
    type: source.type,
    title: clean(title),
    status,
    content: source.type === 'text' ? clean(source.content) : null,
    question: source.type === 'qa' ? clean(source.question) : null,
    answer: source.type === 'qa' ? clean(source.answer) : null,
    sourceUrl: source.type === 'url' ? source.sourceUrl : null,
  });
}

/** The portal's way: saved `pending` at once, indexed in the background (worker or in-process queue). */
export async function addSource(ctx: Pick<AppContext, 'jobs'>, chatbot: Chatbot, source: NewSource): Promise<KnowledgeSource> {
  const saved = await saveSource(chatbot, source, 'pending');
  await ctx.jobs.enqueue('index-source', { sourceId: saved.id });
  return saved;
}
