import { strict as assert } from 'node:assert';
import { KnowledgeChunk, KnowledgeSource } from '../../src/models';
import { request } from '../support/http';
import * as make from '../support/factories';

const post = (key: string, token: string, body: unknown) => request('POST', `/api/v1/chatbots/${key}/knowledge`, { token, body });

const GUIDE = `# Returns
Items can be returned within 30 days of delivery for a full refund.

## Damaged items
Send us a photo of the damage and we ship a replacement at no cost.

# Shipping
Orders leave our warehouse within two business days.`;

describe('POST /api/v1/chatbots/{key}/knowledge', () => {
  it('trains a text document inside the request: ready, with a true chunk_count', async () => {
    const { token, bot } = await make.v1Tenant();
    const { status, body } = await post(bot.publicKey, token, { title: 'Store policies', content: GUIDE });
    assert.equal(status, 201);
    assert.deepEqual(Object.keys(body.data).sort(), ['chunk_count', 'id', 'status', 'title', 'type']);
    assert.equal(body.data.status, 'ready');
    assert.equal(body.data.type, 'text');
    assert.equal(body.data.title, 'Store policies');
    const chunks = await KnowledgeChunk.findAll({ where: { sourceId: body.data.id }, order: [['position', 'ASC']] });
    assert.equal(body.data.chunk_count, chunks.length);
    assert.deepEqual(
      chunks.map((c) => c.title),
      ['Store policies › Returns', 'Store policies › Returns › Damaged items', 'Store policies › Shipping'],
    );
    const source = await KnowledgeSource.findByPk(body.data.id);
    assert.equal(source?.status, 'ready');
    assert.ok(source?.indexedAt);
  });

  it('trains a qa document: the title is the question, the content the answer', async () => {
    const { token, bot } = await make.v1Tenant();
    const { status, body } = await post(bot.publicKey, token, { type: 'qa', title: 'Do you ship abroad?', content: 'Yes, to 40 countries.' });
    assert.equal(status, 201);
    assert.equal(body.data.type, 'qa');
    assert.equal(body.data.chunk_count, 1);
    const source = await KnowledgeSource.findByPk(body.data.id);
    assert.equal(source?.question, 'Do you ship abroad?');
    assert.equal(source?.answer, 'Yes, to 40 countries.');
    const [chunk] = await KnowledgeChunk.findAll({ where: { sourceId: body.data.id } });
    assert.deepEqual([chunk?.title, chunk?.content], ['Do you ship abroad?', 'Yes, to 40 countries.']);
  });

  it('saves an untrainable document and answers 422 with its id and status', async () => {
    const { token, bot } = await make.v1Tenant();
    const { status, body } = await post(bot.publicKey, token, { title: 'Symbols', content: '!!! ??? ... ---' });
    assert.equal(status, 422);
    assert.match(body.message, /saved but could not be trained/);
    assert.equal(body.data.status, 'failed');
    assert.equal(body.data.chunk_count, 0);
    const saved = await KnowledgeSource.findByPk(body.data.id);
    assert.equal(saved?.status, 'failed');
    assert.equal(saved?.chatbotId, bot.id);
    assert.equal(await KnowledgeChunk.count({ where: { sourceId: body.data.id } }), 0);
  });

  it('strips NUL and control characters instead of failing on them', async () => {
    const { token, bot } = await make.v1Tenant();
    const { status, body } = await post(bot.publicKey, token, { title: 'Nul\u0000 title', content: 'Opening hours\u0000 are nine to five.' });
    assert.equal(status, 201);
    const source = await KnowledgeSource.findByPk(body.data.id);
    // Every JSON body loses its NULs before a route sees it (src/http/jsonBody.ts); chunking replaces other control characters.
    assert.equal(source?.content, 'Opening hours are nine to five.');
  });

  describe('validation (422 naming the field, nothing saved)', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['title missing', { content: 'x' }, 'title'],
      ['title blank', { title: '   ', content: 'x' }, 'title'],
      ['title over 200', { title: 't'.repeat(201), content: 'x' }, 'title'],
      ['title not a string', { title: 5, content: 'x' }, 'title'],
      ['content missing', { title: 'T' }, 'content'],
      ['content only whitespace', { title: 'T', content: ' \n\t ' }, 'content'],
      ['content over 1,000,000', { title: 'T', content: 'a'.repeat(1_000_001) }, 'content'],
      ['qa answer over 50,000', { title: 'T?', type: 'qa', content: 'a '.repeat(25_001) }, 'content'],
      ['unknown type', { title: 'T', content: 'x', type: 'url' }, 'type'],
    ];
    for (const [name, body, field] of cases) {
      it(name, async () => {
        const { token, bot } = await make.v1Tenant();
        const reply = await post(bot.publicKey, token, body);
        assert.equal(reply.status, 422);
        assert.ok(reply.body.errors[field], `errors.${field} in ${JSON.stringify(reply.body.errors)}`);
        assert.equal(await KnowledgeSource.count({ where: { chatbotId: bot.id } }), 0);
      });
    }
  });

  it('accepts a 1,000,000-character document', async function () {
    this.timeout(60_000);
    const { token, bot } = await make.v1Tenant();
    const paragraph = 'Parley indexes long manuals by splitting them into passages of readable size. ';
    const content = `${paragraph.repeat(Math.floor(1_000_000 / paragraph.length))}`.padEnd(1_000_000, '.');
    const { status, body } = await post(bot.publicKey, token, { title: 'Manual', content });
    assert.equal(status, 201);
    assert.ok(body.data.chunk_count > 800, `chunk_count ${body.data.chunk_count}`);
    assert.equal(await KnowledgeChunk.count({ where: { sourceId: body.data.id } }), body.data.chunk_count);
  });

  it('is 401 without a token, 403 for a role without manage-content, 404 for another workspace\'s chatbot', async () => {
    const { company, bot } = await make.v1Tenant();
    const body = { title: 'T', content: 'Some text.' };
    assert.equal((await request('POST', `/api/v1/chatbots/${bot.publicKey}/knowledge`, { body })).status, 401);
    const agent = await make.user(company, 'agent');
    const forbidden = await post(bot.publicKey, await make.token(agent), body);
    assert.equal(forbidden.status, 403);
    const neighbour = await make.v1Tenant();
    const foreign = await post(bot.publicKey, neighbour.token, body);
    assert.equal(foreign.status, 404);
    assert.equal(await KnowledgeSource.count({ where: { chatbotId: bot.id } }), 0);
  });
});
