import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import type { Company } from '../../src/models';
import { connectIntegration, disconnectIntegration } from '../../src/domain/integrations/connections';
import { recommendProducts } from '../../src/domain/integrations/recommendations';
import { fakeCommerce, server } from '../support/hooks';
import * as make from '../support/factories';
import { shopifyProduct, type FakeShop } from '../support/fakeCommerce';

const unique = () => randomBytes(6).toString('hex');
const recommend = (company: Company, question: string, limit?: number) => recommendProducts(server().ctx, company.id, question, limit);

async function shop(fields: Omit<FakeShop, 'accessToken'>) {
  const { company } = await make.workspace();
  const accessToken = `shpat_${unique()}`;
  const store: FakeShop = { accessToken, ...fields };
  fakeCommerce().addShop(store);
  await connectIntegration(company.id, { kind: 'shopify', storeDomain: 'acme.myshopify.com', accessToken }, server().ctx.secrets);
  return { company, accessToken, store };
}

const CATALOGUE = [
  shopifyProduct({ id: 1, title: 'Coffee Mug', product_type: 'Kitchen' }),
  shopifyProduct({
    id: 2,
    title: 'Trail Running Shoes',
    handle: 'trail-running-shoes',
    body_html: '<p>Light &amp; fast,<br> for <b>muddy</b> trails.</p><script>alert(1)</script>',
    product_type: 'Footwear',
    tags: 'running, trail',
    image: 'https://cdn.shopify.com/s/files/shoes.jpg',
    // The first size is sold out: the recommendation offers the one that sells.
    variants: [
      { id: 21, price: '79.00', inventory_quantity: 0, inventory_management: 'shopify', inventory_policy: 'deny' },
      { id: 22, price: '89.00', inventory_quantity: 3, inventory_management: 'shopify', inventory_policy: 'deny' },
    ],
  }),
  shopifyProduct({
    id: 3,
    title: 'Wool Socks',
    tags: 'running, winter',
    body_html: null,
    image: null,
    variants: [{ id: 31, price: '12.50', inventory_quantity: 0, inventory_management: 'shopify', inventory_policy: 'deny' }],
  }),
  shopifyProduct({ id: 4, title: 'Running Cap', tags: 'running', variants: [{ id: 41, price: '20.00', inventory_management: null }] }),
];

describe('product recommendations from the Shopify catalogue', function () {
  this.timeout(30_000);

  it('recommends nothing when no store is connected', async () => {
    const { company } = await make.workspace();
    assert.deepEqual(await recommend(company, 'running shoes'), []);
  });

  it('returns matching products as recommendation records, best first, from the storefront domain and shop currency', async () => {
    const { company, accessToken } = await shop({ domain: 'shop.acme.example', currency: 'EUR', products: CATALOGUE });
    const products = await recommend(company, 'Do you have running shoes?');
    assert.deepEqual(products, [
      {
        id: 2,
        name: 'Trail Running Shoes',
        price: '89.00',
        currency: 'EUR',
        url: 'https://shop.acme.example/products/trail-running-shoes',
        buy_url: 'https://shop.acme.example/cart/22:1',
        image_url: 'https://cdn.shopify.com/s/files/shoes.jpg',
        description: 'Light & fast, for muddy trails.',
        in_stock: true,
      },
      // The cap's title says running; the socks only their tags. Untracked stock counts as in stock.
      {
        id: 4,
        name: 'Running Cap',
        price: '20.00',
        currency: 'EUR',
        url: 'https://shop.acme.example/products/running-cap',
        buy_url: 'https://shop.acme.example/cart/41:1',
        image_url: 'https://cdn.shopify.com/s/files/4.jpg',
        description: 'The Running Cap.',
        in_stock: true,
      },
      {
        id: 3,
        name: 'Wool Socks',
        price: '12.50',
        currency: 'EUR',
        url: 'https://shop.acme.example/products/wool-socks',
        buy_url: 'https://shop.acme.example/cart/31:1',
        image_url: null,
        description: '',
        in_stock: false,
      },
    ]);
    assert.deepEqual((await recommend(company, 'running shoes', 1)).map((p) => p.id), [2]);

    const sent = fakeCommerce().requestsWith(accessToken);
    assert.deepEqual(
      sent.map((r) => [r.pathname, Object.fromEntries(r.query)]),
      [
        ['/admin/api/2024-10/shop.json', {}],
        ['/admin/api/2024-10/products.json', { status: 'active', published_status: 'published', limit: '250', fields: 'id,title,handle,body_html,product_type,tags,variants,image,images' }],
      ],
      'the catalogue is fetched once and reused for a minute',
    );
  });

  it('recommends nothing when nothing matches or the question is blank', async () => {
    const { company, accessToken } = await shop({ products: CATALOGUE });
    assert.deepEqual(await recommend(company, 'do you sell umbrellas?'), []);
    assert.deepEqual(await recommend(company, '   '), []);
    assert.equal(fakeCommerce().requestsWith(accessToken).length, 2, 'a blank question fetches nothing');
  });

  it('never throws: a failing or hanging store recommends nothing, and a failure is not cached', async () => {
    const failing = await shop({ products: CATALOGUE, fail: 500 });
    assert.deepEqual(await recommend(failing.company, 'running shoes'), []);
    failing.store.fail = undefined;
    assert.deepEqual((await recommend(failing.company, 'running shoes')).map((p) => p.id), [2, 4, 3]);

    const hanging = await shop({ products: CATALOGUE, hang: true });
    const started = Date.now();
    assert.deepEqual(await recommend(hanging.company, 'running shoes'), []);
    assert.ok(Date.now() - started < 8_000);
  });

  it('starts afresh when the store is reconnected, and stops when it is disconnected', async () => {
    const { company, accessToken } = await shop({ products: CATALOGUE });
    assert.equal((await recommend(company, 'mug')).length, 1);
    const replacement = `shpat_${unique()}`;
    fakeCommerce().addShop({ accessToken: replacement, products: [shopifyProduct({ id: 9, title: 'Travel Mug' })] });
    await connectIntegration(company.id, { kind: 'shopify', storeDomain: 'acme.myshopify.com', accessToken: replacement }, server().ctx.secrets);
    assert.deepEqual((await recommend(company, 'mug')).map((p) => p.id), [9]);
    assert.equal(fakeCommerce().requestsWith(accessToken).length, 2);

    await disconnectIntegration(company.id, 'shopify');
    assert.deepEqual(await recommend(company, 'mug'), []);
  });
});
