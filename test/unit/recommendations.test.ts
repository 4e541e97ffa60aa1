import { strict as assert } from 'node:assert';
import { keywordsOf, rankProducts, type Matchable } from '../../src/domain/integrations/productMatch';

const product = (title: string, extra: Partial<Matchable> = {}): Matchable => ({ title, inStock: true, ...extra });

describe('product matching for recommendations', () => {
  it('keeps the meaningful words, folding case, accents and plurals', () => {
    assert.deepEqual([...keywordsOf('Do you have any Running SHOES or dresses for a café?')], ['running', 'shoe', 'dress', 'cafe']);
    assert.deepEqual([...keywordsOf('batteries, boxes & watches')], ['battery', 'box', 'watch']);
    assert.deepEqual([...keywordsOf('')], []);
  });

  it('ranks by title (3), tags (2) and product type (2), dropping products that share nothing', () => {
    const shoes = product('Trail Running Shoes', { tags: 'running, trail', productType: 'Footwear' });
    const socks = product('Wool Socks', { tags: 'running, winter' });
    const boots = product('Leather Boots', { productType: 'Footwear' });
    const mug = product('Coffee Mug');
    assert.deepEqual(rankProducts('running shoes please', [mug, socks, boots, shoes], 5), [shoes, socks]);
    assert.deepEqual(rankProducts('footwear', [mug, boots, shoes], 5), [boots, shoes]);
  });

  it('prefers what is in stock on a tie, then the catalogue order, and honours the limit', () => {
    const soldOut = product('Red Scarf', { inStock: false });
    const first = product('Blue Scarf');
    const second = product('Green Scarf');
    assert.deepEqual(rankProducts('scarf', [soldOut, first, second], 3), [first, second, soldOut]);
    assert.deepEqual(rankProducts('scarf', [soldOut, first, second], 1), [first]);
    assert.deepEqual(rankProducts('scarf', [first], 0), []);
  });

  it('recommends nothing for a question of stop words only', () => {
    assert.deepEqual(rankProducts('what do you have?', [product('What You Have')], 3), []);
  });
});
