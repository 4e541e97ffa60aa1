import { strict as assert } from 'node:assert';
import pino from 'pino';
import { QueryTypes } from 'sequelize';
import { countKnowledgeSources } from '../../src/domain/chatbots/findChatbot';
import { addSource } from '../../src/domain/knowledge/addSource';
import { deleteSource } from '../../src/domain/knowledge/deleteSource';
import { indexSource } from '../../src/domain/knowledge/indexSource';
import { retrievePassages } from '../../src/domain/knowledge/retrieve';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import { AppError } from '../../src/errors';
import { KnowledgeChunk, KnowledgeSource, type Chatbot } from '../../src/models';
import { eventually } from '../support/eventually';
import { startWorker, stopProcess, type Running } from '../support/processes';
import { server } from '../support/hooks';
import { html, startSite, type SitePage, type TestSite } from '../support/site';
import * as make from '../support/factories';

const logger = pino({ level: 'silent' });
const crawlAllowed = () => ({ ...server().ctx, config: { ...server().ctx.config, crawl: { allowPrivate: true, maxPages: 10, maxBytesPerPage: 2 * 1024 * 1024 } }, logger });

const train = (bot: Chatbot, title: string, content: string) => trainDocument(server().ctx, bot, { type: 'text', title, content });

/** A three-page website with a robots.txt rule and a link to another origin. */
function shopSite(elsewhere: string, shippingText = 'Parcels to Norway arrive within four working days.'): Record<string, SitePage> {
  return {
    '/robots.txt': { body: 'User-agent: *\nDisallow: /private\n', headers: { 'Content-Type': 'text/plain' } },
    '/': html('<h1>Fjord Shop</h1><p>Hand-knitted sweaters from Bergen.</p><a href="/shipping">Shipping</a> <a href="/faq">FAQ</a> <a href="/private/admin">Admin</a> <a href="' + elsewhere + '/">Partner</a>', '<title>Fjord Shop</title>'),
    '/shipping': html(`<h1>Shipping</h1><p>${shippingText}</p>`, '<title>Shipping</title>'),
    '/faq': html('<h1>FAQ</h1><h2>Washing</h2><p>Wash the wool sweaters cold, by hand.</p>', '<title>FAQ</title>'),
    '/private/admin': html('<p>secret admin page</p>'),
  };
}

describe('knowledge: retrieval, crawling, deletion, the indexing worker', () => {
  describe('retrieval', () => {
    it('ranks the passage that answers the question first, scoped to the chatbot', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const other = await make.chatbot(company);
      await train(bot, 'Refunds', 'Refunds are paid to the original card within five days of the return arriving.');
      await train(bot, 'Account', '# Password\nTo reset your password, open Settings and choose Reset password. A reset link is emailed to you.');
      await train(bot, 'Shipping', 'We ship with tracked couriers. Shipping is free above 50 euros.');
      await train(other, 'Other bot', 'Password resets for the other bot happen by phone only.');

      const password = await retrievePassages(bot.id, 'How do I reset my password?');
      assert.equal(password[0]?.sourceTitle, 'Account');
      assert.equal(password[0]?.title, 'Account › Password');
      assert.ok(password.every((p) => p.content !== 'Password resets for the other bot happen by phone only.'), 'another chatbot\'s knowledge never leaks');
      assert.equal((await retrievePassages(bot.id, 'when is my refund paid'))[0]?.sourceTitle, 'Refunds');
      assert.equal((await retrievePassages(bot.id, 'is shipping free?'))[0]?.sourceTitle, 'Shipping');
      assert.equal((await retrievePassages(other.id, 'reset password'))[0]?.sourceTitle, 'Other bot');
    });

    it('keeps each term\'s passage count true through training, re-indexing and deletion', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const drift = () =>
        KnowledgeChunk.sequelize!.query<{ lexeme: string }>(
          `SELECT lexeme FROM (SELECT lexeme, count(*)::int AS chunks FROM knowledge_chunks, unnest(tsvector_to_array(search)) lexeme
                                WHERE chatbot_id = :bot GROUP BY lexeme) truth
             FULL JOIN (SELECT lexeme, chunks FROM knowledge_terms WHERE chatbot_id = :bot) kept USING (lexeme)
            WHERE truth.chunks IS DISTINCT FROM kept.chunks`,
          { replacements: { bot: bot.id }, type: QueryTypes.SELECT },
        );
      const first = (await train(bot, 'Refunds', '# Refunds\nRefunds are paid within five days.\n\n# Returns\nReturns are free.')).source;
      await train(bot, 'Shipping', 'Shipping is free above 50 euros; refunds of shipping are paid too.');
      assert.deepEqual(await drift(), []);
      await indexSource(server().ctx, first.id, { finalAttempt: false });
      assert.deepEqual(await drift(), []);
      await deleteSource(bot, first.id);
      assert.deepEqual(await drift(), []);
      const [refund] = await KnowledgeChunk.sequelize!.query<{ chunks: number }>(
        `SELECT chunks FROM knowledge_terms WHERE chatbot_id = :bot AND lexeme = 'refund'`,
        { replacements: { bot: bot.id }, type: QueryTypes.SELECT },
      );
      assert.equal(refund?.chunks, 1);
    });

    it('finds nothing for stop words alone and treats tsquery syntax as plain words', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      await train(bot, 'Refunds', 'Refunds are paid within five days.');
      assert.deepEqual(await retrievePassages(bot.id, 'what is the'), []);
      assert.deepEqual(await retrievePassages(bot.id, "!!! ' :* & | ()"), []);
      assert.equal((await retrievePassages(bot.id, "refunds' & | !(:*"))[0]?.sourceTitle, 'Refunds');
    });
  });

  describe('crawling a website source', () => {
    let partner: TestSite;
    let site: TestSite;
    before(async () => {
      partner = await startSite({ '/': html('<p>partner</p>') });
      site = await startSite(shopSite(partner.origin));
    });
    after(async () => {
      await site.close();
      await partner.close();
    });

    it('indexes same-origin pages as child sources, obeying robots.txt and ignoring other origins', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const source = await KnowledgeSource.create({ companyId: company.id, chatbotId: bot.id, type: 'url', title: 'Shop', sourceUrl: site.url('/') });
      const indexed = await indexSource(crawlAllowed(), source.id, { finalAttempt: false });
      assert.equal(indexed?.status, 'ready');

      const pages = await KnowledgeSource.findAll({ where: { parentId: source.id }, order: [['sourceUrl', 'ASC']] });
      assert.deepEqual(pages.map((p) => p.sourceUrl), [site.url('/'), site.url('/faq'), site.url('/shipping')]);
      assert.ok(pages.every((p) => p.type === 'page' && p.status === 'ready' && p.chunkCount > 0));
      assert.equal(indexed?.chunkCount, pages.reduce((sum, p) => sum + p.chunkCount, 0));
      assert.equal(await KnowledgeChunk.count({ where: { chatbotId: bot.id } }), indexed?.chunkCount);
      assert.equal(await countKnowledgeSources(bot.id), 1, 'pages are not listed at the top level');
      assert.ok(!site.requests.some((path) => path.startsWith('/private')), 'robots.txt was obeyed');
      assert.deepEqual(partner.requests, [], 'the other origin was never fetched');

      const [hit] = await retrievePassages(bot.id, 'how should I wash the wool sweater');
      assert.deepEqual([hit?.sourceTitle, hit?.url], ['FAQ', site.url('/faq')]);
    });

    it('replaces the pages on a re-crawl', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const pages = shopSite(partner.origin);
      const changing = await startSite(pages);
      try {
        const source = await KnowledgeSource.create({ companyId: company.id, chatbotId: bot.id, type: 'url', title: 'Shop', sourceUrl: changing.url('/') });
        await indexSource(crawlAllowed(), source.id, { finalAttempt: false });
        const before = await KnowledgeSource.findAll({ where: { parentId: source.id } });
        Object.assign(pages, shopSite(partner.origin, 'Parcels to Iceland travel by ferry and take two weeks.'));
        await indexSource(crawlAllowed(), source.id, { finalAttempt: false });
        const after = await KnowledgeSource.findAll({ where: { parentId: source.id } });
        assert.equal(after.length, before.length);
        assert.equal(await KnowledgeSource.count({ where: { id: before.map((p) => p.id) } }), 0, 'old pages are gone');
        assert.equal((await retrievePassages(bot.id, 'Iceland ferry'))[0]?.url, changing.url('/shipping'));
        assert.deepEqual(await retrievePassages(bot.id, 'Norway'), []);
      } finally {
        await changing.close();
      }
    });

    it('refuses a private address unless CRAWL_ALLOW_PRIVATE: failed with the reason, nothing fetched', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const before = site.requests.length;
      const source = await KnowledgeSource.create({ companyId: company.id, chatbotId: bot.id, type: 'url', title: 'Shop', sourceUrl: site.url('/') });
      const result = await indexSource(server().ctx, source.id, { finalAttempt: false });
      assert.equal(server().ctx.config.crawl.allowPrivate, false);
      assert.equal(result?.status, 'failed');
      assert.match(result?.failureReason ?? '', /refused/);
      assert.equal(site.requests.length, before);
      assert.equal(await KnowledgeChunk.count({ where: { chatbotId: bot.id } }), 0);
    });
  });

  describe('deletion', () => {
    it('removes a source with its pages and passages, and 404s a page or another chatbot\'s source', async () => {
      const site = await startSite(shopSite('http://127.0.0.1:9'));
      try {
        const { company } = await make.workspace();
        const bot = await make.chatbot(company);
        const neighbour = await make.chatbot((await make.workspace()).company);
        const source = await KnowledgeSource.create({ companyId: company.id, chatbotId: bot.id, type: 'url', title: 'Shop', sourceUrl: site.url('/') });
        await indexSource(crawlAllowed(), source.id, { finalAttempt: false });
        const page = await KnowledgeSource.findOne({ where: { parentId: source.id } });
        const kept = (await train(bot, 'Kept', 'This document stays.')).source;

        const expect404 = (error: unknown) => error instanceof AppError && error.status === 404;
        await assert.rejects(deleteSource(neighbour, source.id), expect404);
        await assert.rejects(deleteSource(bot, page!.id), expect404);
        await deleteSource(bot, source.id);
        assert.equal(await KnowledgeSource.count({ where: { id: source.id } }), 0);
        assert.equal(await KnowledgeSource.count({ where: { parentId: source.id } }), 0);
        assert.equal(await KnowledgeChunk.count({ where: { chatbotId: bot.id } }), kept.chunkCount);
      } finally {
        await site.close();
      }
    });
  });

  describe('the indexing worker process (cluster mode)', function () {
    this.timeout(60_000);
    let worker: Running;
    let site: TestSite;
    before(async () => {
      site = await startSite(shopSite('http://127.0.0.1:9'));
      worker = await startWorker();
    });
    after(async () => {
      await stopProcess(worker);
      await site?.close();
    });

    it('takes sources from pending to ready in the background: text, qa and url', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const ctx = server().ctx;
      const sources = [
        await addSource(ctx, bot, { type: 'text', content: 'Gift cards never expire.' }),
        await addSource(ctx, bot, { type: 'qa', question: 'Can I pay by invoice?', answer: 'Yes, for orders above 500 euros.' }),
        await addSource(ctx, bot, { type: 'url', sourceUrl: site.url('/') }),
      ];
      assert.deepEqual(sources.map((s) => s.status), ['pending', 'pending', 'pending']);
      assert.deepEqual(sources.map((s) => s.title), [`Text document ${new Date().toISOString().slice(0, 10)}`, 'Can I pay by invoice?', site.url('/')]);
      const ready = await eventually(
        () => KnowledgeSource.findAll({ where: { id: sources.map((s) => s.id) }, order: [['id', 'ASC']] }),
        (rows) => rows.every((row) => row.status === 'ready'),
        20_000,
      );
      assert.deepEqual(ready.map((r) => r.status), ['ready', 'ready', 'ready']);
      assert.ok(ready.every((r) => r.chunkCount > 0));
      assert.equal((await retrievePassages(bot.id, 'pay by invoice'))[0]?.content, 'Yes, for orders above 500 euros.');
    });

    it('records a permanent failure at once with its reason', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const source = await addSource(server().ctx, bot, { type: 'url', sourceUrl: site.url('/missing') });
      const failed = await eventually(() => KnowledgeSource.findByPk(source.id), (row) => row?.status === 'failed', 20_000);
      assert.equal(failed?.status, 'failed');
      assert.match(failed?.failureReason ?? '', /404/);
    });
  });
});
