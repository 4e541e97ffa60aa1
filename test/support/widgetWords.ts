import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from './processes';

export const WIDGET_SOURCE = readFileSync(resolve(ROOT, 'client/widget/widget.js'), 'utf8');
const CATALOGUE_DIR = resolve(ROOT, 'client/widget/i18n');

/** The languages with a catalogue file beside widget.js (English, inside the script, is not one). */
export const catalogueCodes = (): string[] => readdirSync(CATALOGUE_DIR).map((file) => file.replace(/\.json$/, '')).sort();

/** The widget's own texts in one language: English from `var EN` in widget.js (JSON syntax), the others from their files. */
export function widgetWords(code: string): Record<string, unknown> {
  if (code !== 'en') return JSON.parse(readFileSync(join(CATALOGUE_DIR, `${code}.json`), 'utf8')) as Record<string, unknown>;
  const match = /\n {2}var EN = (\{[\s\S]*?\n {2}\});\n/.exec(WIDGET_SOURCE);
  if (!match) throw new Error('widget.js no longer declares `var EN = {...};`');
  return JSON.parse(match[1]!) as Record<string, unknown>;
}
