import { strict as assert } from 'node:assert';
import { KnowledgeChunk, KnowledgeSource } from '../../src/models';
import { eventually } from '../support/eventually';
import { get, request } from '../support/http';
import { startWorker, stopProcess, type Running } from '../support/processes';
import { html, startSite, type TestSite } from '../support/site';
import * as make from '../support/factories';
import { portalTenant } from '../support/portal';

const ITEM_FIELDS = ['chunk_count', 'created_at', 'id', 'source_url', 'status', 'title', 'type'];
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

async function tenantWithBot() {
  const tenant = await portalTenant();
  const bot = await make.chatbot(tenant.company);
  return { ...tenant, bot, path: `/api/portal/chatbots/${bot.publicKey}/knowledge` };
}

describe('portal: knowledge', () => {
  it('lists top-level sources only, newest first, in the portal item shape', async () => {
    const { bot, token, path } = await tenantWithBot();
    const older = await make.knowledgeSource(bot, { type: 'url', title: 'Docs site', createdAt: new Date(Date.now() - 60_000) });
    await make.knowledgeSource(bot, { parentId: older.id });
    const newer = await make.knowledgeSource(bot, { type: 'text', title: 'Policies', status: 'pending' });
    const reply = await get(path, token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.data.map((item: { id: number }) => item.id), [newer.id, older.id]);
    for (const item of reply.body.data) {
      assert.deepEqual(Object.keys(item).sort(), ITEM_FIELDS);
      assert.match(item.created_at, ISO_WITH_OFFSET);
    }
    assert.deepEqual(reply.body.data[0], { id: newer.id, type: 'text', title: 'Policies', source_url: null, status: 'pending', chunk_count: 0, created_at: reply.body.data[0].created_at });
    assert.equal(reply.body.data[1].source_url, older.sourceUrl);
    assert.equal(new Date(reply.body.data[1].created_at).getTime(), Math.floor(older.createdAt.getTime() / 1000) * 1000);
  });

  it('creates each type pending, with a default title when none is given', async () => {
    const { bot, token, path } = await tenantWithBot();
    const today = new Date().toISOString().slice(0, 10);
    for (const [body, expected] of [
      [{ type: 'text', content: 'Gift cards never expire.' }, { type: 'text', title: `Text document ${today}`, source_url: null }],
      [{ type: 'text', title: ' Gift cards ', content: 'Gift cards never expire.' }, { type: 'text', title: 'Gift cards', source_url: null }],
      [{ type: 'qa', question: 'Do you ship abroad?', answer: 'Yes, worldwide.' }, { type: 'qa', title: 'Do you ship abroad?', source_url: null }],
      [{ type: 'url', source_url: 'https://shop.example.test/help' }, { type: 'url', title: 'https://shop.example.test/help', source_url: 'https://shop.example.test/help' }],
    ] as const) {
      const reply = await request('POST', path, { token, body });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body.data).sort(), ITEM_FIELDS);
      assert.deepEqual({ ...reply.body.data, id: 0, created_at: '' }, { ...expected, id: 0, status: 'pending', chunk_count: 0, created_at: '' });
      const row = await KnowledgeSource.findByPk(reply.body.data.id);
      assert.equal(row?.chatbotId, bot.id);
    }
  });

  it('answers 422 per field and saves nothing', async () => {
    const { bot, token, path } = await tenantWithBot();
    for (const [body, field] of [
      [{}, 'type'],
      [{ type: 'pdf', content: 'x' }, 'type'],
      [{ type: 'text' }, 'content'],
      [{ type: 'text', content: ' \n ' }, 'content'],
      [{ type: 'text', content: 'x'.repeat(1_000_001) }, 'content'],
      [{ type: 'text', content: 'ok', title: 't'.repeat(256) }, 'title'],
      [{ type: 'qa', answer: 'Yes' }, 'question'],
      [{ type: 'qa', question: 'q'.repeat(2001), answer: 'Yes' }, 'question'],
      [{ type: 'qa', question: 'Why?' }, 'answer'],
      [{ type: 'qa', question: 'Why?', answer: 'a'.repeat(50_001) }, 'answer'],
      [{ type: 'url' }, 'source_url'],
      [{ type: 'url', source_url: 'not a url' }, 'source_url'],
      [{ type: 'url', source_url: 'ftp://example.test/file' }, 'source_url'],
      [{ type: 'url', source_url: `https://example.test/${'p'.repeat(2048)}` }, 'source_url'],
    ] as const) {
      const reply = await request('POST', path, { token, body });
      assert.equal(reply.status, 422, JSON.stringify(body).slice(0, 80));
      assert.ok(reply.body.errors[field], `${JSON.stringify(body).slice(0, 80)} -> ${JSON.stringify(reply.body)}`);
    }
    assert.equal(await KnowledgeSource.count({ where: { chatbotId: bot.id } }), 0);
  });

  it('deletes a source with its crawled pages and passages; a page, a foreign id or a repeat is 404', async () => {
    const { bot, token, path } = await tenantWithBot();
    const site = await make.knowledgeSource(bot, { type: 'url' });
    const page = await make.knowledgeSource(bot, { parentId: site.id });
    await KnowledgeChunk.create({ companyId: bot.companyId, chatbotId: bot.id, sourceId: page.id, position: 0, content: 'Opening hours are nine to five.' });
    const foreign = await make.knowledgeSource(await make.chatbot((await make.workspace()).company), {});

    assert.equal((await request('DELETE', `${path}/${page.id}`, { token })).status, 404, 'a crawled page is not deleted on its own');
    assert.equal((await request('DELETE', `${path}/${foreign.id}`, { token })).status, 404);
    assert.equal((await request('DELETE', `${path}/abc`, { token })).status, 404);
    const reply = await request('DELETE', `${path}/${site.id}`, { token });
    assert.deepEqual([reply.status, Object.keys(reply.body)], [200, ['message']]);
    assert.equal(await KnowledgeSource.count({ where: { id: [site.id, page.id] } }), 0);
    assert.equal(await KnowledgeChunk.count({ where: { chatbotId: bot.id } }), 0);
    assert.ok(await KnowledgeSource.findByPk(foreign.id));
    assert.equal((await request('DELETE', `${path}/${site.id}`, { token })).status, 404);
  });

  it('needs manage-content to add or delete: an agent gets 403 (and may still list)', async () => {
    const { company, bot, path } = await tenantWithBot();
    const source = await make.knowledgeSource(bot, {});
    const agentToken = await make.token(await make.user(company, 'agent'), 'portal');
    assert.equal((await get(path, agentToken)).status, 200);
    assert.equal((await request('POST', path, { token: agentToken, body: { type: 'text', content: 'x' } })).status, 403);
    assert.equal((await request('DELETE', `${path}/${source.id}`, { token: agentToken })).status, 403);
    assert.ok(await KnowledgeSource.findByPk(source.id));
  });

  describe('background indexing through the worker process', function () {
    this.timeout(60_000);
    let worker: Running;
    let site: TestSite;
    before(async () => {
      site = await startSite({ '/': html('<h1>Returns</h1><p>Returns are free within 60 days.</p>', '<title>Help</title>') });
      worker = await startWorker();
    });
    after(async () => {
      await stopProcess(worker);
      await site?.close();
    });

    it('moves what the portal added from pending to ready, with passages', async () => {
      const { token, path } = await tenantWithBot();
      const created = [];
      for (const body of [
        { type: 'text', title: 'Gift cards', content: 'Gift cards never expire.' },
        { type: 'qa', question: 'Can I pay by invoice?', answer: 'Yes, for orders above 500 euros.' },
        { type: 'url', source_url: site.url('/') },
      ]) {
        const reply = await request('POST', path, { token, body });
        assert.equal(reply.body.data.status, 'pending');
        created.push(reply.body.data.id as number);
      }
      const listed = await eventually(
        async () => (await get(path, token)).body.data as Array<{ id: number; status: string; chunk_count: number }>,
        (items) => items.every((item) => item.status === 'ready'),
        30_000,
      );
      assert.deepEqual(listed.map((item) => item.status), ['ready', 'ready', 'ready']);
      assert.ok(listed.every((item) => item.chunk_count > 0), JSON.stringify(listed));
      assert.deepEqual(listed.map((item) => item.id).sort(), created.sort(), 'the crawled page stays under its URL source');
    });
  });
});
