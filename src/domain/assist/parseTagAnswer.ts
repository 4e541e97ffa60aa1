import { asObject, dig, parseJson } from '../../ai/providers/wire';
import type { CatalogueTag } from './prompts';

export interface ParsedTagSuggestion {
  tagId: number;
  /** 0..1, two decimals. */
  confidence: number;
  /** At most REASON_CHARS characters. */
  reason: string;
}

export const MAX_TAG_SUGGESTIONS = 5;
const REASON_CHARS = 500;
/** A model that names a tag but no usable confidence is taken as undecided. */
const UNSTATED_CONFIDENCE = 0.5;

/**
 * Reads the model's tag answer without trusting it: the JSON may sit in a code fence or between
 * prose, items may name tags by id or by name, and anything outside the catalogue is dropped.
 * Confidence is clamped to 0..1 and the reason cut to 500 characters; a tag named twice keeps its
 * higher confidence. Null when the answer holds no tag list at all (an empty list is an answer).
 */
export function parseTagAnswer(answer: string, catalogue: CatalogueTag[]): ParsedTagSuggestion[] | null {
  const json = jsonIn(answer);
  const items: unknown = Array.isArray(json) ? json : dig(json, 'tags');
  if (!Array.isArray(items)) return null;
  const byId = new Map(catalogue.map((tag) => [tag.id, tag]));
  const byName = new Map(catalogue.map((tag) => [normalise(tag.name), tag]));
  const best = new Map<number, ParsedTagSuggestion>();
  for (const item of items as unknown[]) {
    const tag = tagOf(item, byId, byName);
    if (!tag) continue;
    const suggestion = { tagId: tag.id, confidence: confidenceOf(dig(item, 'confidence')), reason: reasonOf(dig(item, 'reason')) };
    const earlier = best.get(tag.id);
    if (!earlier || suggestion.confidence > earlier.confidence) best.set(tag.id, suggestion);
  }
  return [...best.values()].sort((a, b) => b.confidence - a.confidence).slice(0, MAX_TAG_SUGGESTIONS);
}

function jsonIn(answer: string): unknown {
  const text = answer.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  for (const candidate of [text, fenced, between(text, '{', '}'), between(text, '[', ']')]) {
    const parsed = candidate === undefined ? undefined : parseJson(candidate.trim());
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

/** The catalogue tag an item names: by id first (number or digits), else by name; bare ids and names count too. */
function tagOf(item: unknown, byId: Map<number, CatalogueTag>, byName: Map<string, CatalogueTag>): CatalogueTag | undefined {
  const fields = asObject(item);
  const id = fields ? (fields.id ?? fields.tag_id) : item;
  const name = fields ? (fields.name ?? fields.tag) : item;
  const numeric = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id.trim()) ? Number(id) : undefined;
  const found = numeric === undefined ? undefined : byId.get(numeric);
  return found ?? (typeof name === 'string' ? byName.get(normalise(name)) : undefined);
}

function confidenceOf(value: unknown): number {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) return UNSTATED_CONFIDENCE;
  return Math.round(Math.min(1, Math.max(0, number)) * 100) / 100;
}

function reasonOf(value: unknown): string {
  if (typeof value !== 'string') return '';
  // Cut by code points, as Postgres counts varchar length, so no surrogate pair is split.
  return Array.from(value.trim().replace(/\s+/g, ' ')).slice(0, REASON_CHARS).join('');
}

const normalise = (name: string) => name.trim().replace(/^#/, '').toLowerCase();
