/** A retrievable passage: the heading path it sits under, and its text. */
export interface Chunk {
  title: string;
  content: string;
}

export interface ChunkingOptions {
  /** Longest passage in characters; a passage is what a prompt quotes, so it stays paragraph-sized. */
  maxChars?: number;
  /** Characters of the previous passage repeated at the start of the next within one section. */
  overlap?: number;
}

const TITLE_LIMIT = 255;

/**
 * Splits a document by its structure: markdown-style headings open sections, blank lines separate
 * paragraphs, and paragraphs are packed into passages up to `maxChars`. A passage never spans two
 * sections; within a section, consecutive passages share `overlap` characters so a sentence cut at
 * a boundary is still found whole in one of them. Oversized paragraphs split at sentences, then words.
 */
export function chunkDocument(title: string, text: string, options: ChunkingOptions = {}): Chunk[] {
  const maxChars = options.maxChars ?? 1200;
  const overlap = Math.min(options.overlap ?? 200, Math.floor(maxChars / 4));
  const chunks: Chunk[] = [];
  for (const section of sections(clean(text))) {
    const sectionTitle = [title.trim(), ...section.headings].filter(Boolean).join(' › ').slice(0, TITLE_LIMIT);
    for (const content of pack(section.paragraphs.flatMap((p) => splitLong(p, maxChars)), maxChars, overlap)) {
      chunks.push({ title: sectionTitle, content });
    }
  }
  return chunks;
}

/** Postgres text cannot hold NUL; other control characters only add noise to the index. */
export function clean(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, ' ');
}

interface Section {
  headings: string[];
  paragraphs: string[];
}

function sections(text: string): Section[] {
  const result: Section[] = [];
  const path: string[] = [];
  let current: Section = { headings: [], paragraphs: [] };
  let paragraph: string[] = [];
  const endParagraph = () => {
    const joined = paragraph.join(' ').replace(/\s+/g, ' ').trim();
    if (joined) current.paragraphs.push(joined);
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    const heading = markdownHeading(line.trim());
    if (heading) {
      endParagraph();
      if (current.paragraphs.length) result.push(current);
      path.length = heading.level - 1;
      path[heading.level - 1] = heading.text;
      current = { headings: path.filter(Boolean), paragraphs: [] };
    } else if (line.trim() === '') {
      endParagraph();
    } else {
      paragraph.push(line.trim());
    }
  }
  endParagraph();
  if (current.paragraphs.length) result.push(current);
  return result;
}

/**
 * `## Title ##` as level 2, "Title" (closing hashes dropped), for a trimmed line. A scan rather than
 * `/^(#{1,6})\s+(.+?)\s*#*\s*$/`, which backtracked cubically through a long run of spaces inside the line.
 */
function markdownHeading(line: string): { level: number; text: string } | undefined {
  let level = 0;
  while (line[level] === '#') level++;
  if (level < 1 || level > 6 || !isSpace(line[level])) return undefined;
  const text = line.slice(level).trimStart();
  let end = text.length;
  while (end > 1 && text[end - 1] === '#') end--;
  while (end > 1 && isSpace(text[end - 1])) end--;
  return { level, text: text.slice(0, end) };
}

const isSpace = (char: string | undefined) => char !== undefined && char.trim() === '';

/** Paragraphs longer than a passage, cut at sentence ends, then at spaces, then anywhere. */
function splitLong(paragraph: string, maxChars: number): string[] {
  if (paragraph.length <= maxChars) return [paragraph];
  const pieces: string[] = [];
  let piece = '';
  for (const sentence of paragraph.match(/[^.!?。！？]+(?:[.!?。！？]+["')\]]*\s*|$)/g) ?? [paragraph]) {
    for (const part of sentence.length > maxChars ? hardSplit(sentence, maxChars) : [sentence]) {
      if (piece && piece.length + part.length > maxChars) {
        pieces.push(piece.trim());
        piece = '';
      }
      piece += part;
    }
  }
  if (piece.trim()) pieces.push(piece.trim());
  return pieces;
}

function hardSplit(text: string, maxChars: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const space = rest.lastIndexOf(' ', maxChars);
    const cut = space > maxChars / 2 ? space + 1 : maxChars;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) parts.push(rest);
  return parts;
}

function pack(paragraphs: string[], maxChars: number, overlap: number): string[] {
  const passages: string[] = [];
  let current = '';
  for (const paragraph of paragraphs) {
    if (current && current.length + 2 + paragraph.length > maxChars) {
      passages.push(current);
      const carried = tail(current, overlap);
      current = carried && carried.length + 2 + paragraph.length <= maxChars ? `${carried}\n\n${paragraph}` : paragraph;
    } else {
      current = current ? `${current}\n\n${paragraph}` : paragraph;
    }
  }
  if (current) passages.push(current);
  return passages;
}

/** The last `chars` characters of a passage, starting at a word boundary. */
function tail(text: string, chars: number): string {
  if (chars <= 0) return '';
  if (text.length <= chars) return text;
  const slice = text.slice(-chars);
  const space = slice.indexOf(' ');
  return (space >= 0 ? slice.slice(space + 1) : slice).trim();
}
