/** Words that say nothing about which product a visitor wants. */
const STOPWORDS = new Set(
  (
    'a an and any are as at be but by can could do does for from get got have has hello hi how i if in is it its me my need ' +
    'no not of on or please recommend show so some something than that the their them there these this those to ' +
    'up us want was we what when where which who why will with would you your looking buy find good best like ' +
    'one ones sell selling there anything'
  ).split(' '),
);

/** Folds the usual English plurals so "boots" meets "boot" and "dresses" meets "dress" (applied to both sides). */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/** The meaningful words of a text: lower case, accents dropped, stop words out, plurals folded. */
export function keywordsOf(text: string | null | undefined): Set<string> {
  const words = (text ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 2 && !STOPWORDS.has(word));
  return new Set(words.map(stem));
}

export interface Matchable {
  title: string;
  tags?: string | null;
  productType?: string | null;
  inStock: boolean;
}

const WEIGHTS = { title: 3, tags: 2, productType: 2 } as const;

/**
 * The products that share words with the question, best first: a title word weighs 3, a tag or the
 * product type 2. Ties go to what is in stock, then to the catalogue's own order. Nothing shared, nothing returned.
 */
export function rankProducts<T extends Matchable>(question: string, products: T[], limit: number): T[] {
  const wanted = keywordsOf(question);
  if (!wanted.size || limit <= 0) return [];
  const overlap = (text: string | null | undefined) => [...keywordsOf(text)].filter((word) => wanted.has(word)).length;
  return products
    .map((product, index) => ({
      product,
      index,
      score:
        WEIGHTS.title * overlap(product.title) +
        WEIGHTS.tags * overlap(product.tags?.replaceAll(',', ' ')) +
        WEIGHTS.productType * overlap(product.productType),
    }))
    .filter((candidate) => candidate.score > 0)
    .sort((a, b) => b.score - a.score || Number(b.product.inStock) - Number(a.product.inStock) || a.index - b.index)
    .slice(0, limit)
    .map((candidate) => candidate.product);
}
