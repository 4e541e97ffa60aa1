import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Chatbot } from '../../src/models';
import { launchBrowser, openWidget, sendInWidget, startBrowserNode, stopBrowserNode, widget, widgetMessages } from '../support/browser';
import * as make from '../support/factories';
import { fakeLlm } from '../support/hooks';
import type { Running } from '../support/processes';
import { html, startSite, type TestSite } from '../support/site';
import { widgetWords } from '../support/widgetWords';

/** A browser language, a visitor question and the AI's answer in that language. */
const LANGUAGES: Array<{ code: string; browser: string; question: string; answer: string }> = [
  { code: 'en', browser: 'en-US', question: 'Do you ship abroad?', answer: 'We ship to every country within five working days.' },
  { code: 'es', browser: 'es-ES', question: '¿Envían al extranjero?', answer: 'Enviamos a todos los países en cinco días laborables.' },
  { code: 'fr', browser: 'fr-FR', question: 'Livrez-vous à l’étranger ?', answer: 'Nous livrons dans tous les pays en cinq jours ouvrés.' },
  { code: 'de', browser: 'de-DE', question: 'Liefern Sie ins Ausland?', answer: 'Wir liefern innerhalb von fünf Werktagen in alle Länder.' },
  { code: 'pt', browser: 'pt-BR', question: 'Vocês enviam para o exterior?', answer: 'Enviamos para todos os países em cinco dias úteis.' },
  { code: 'nl', browser: 'nl-NL', question: 'Verzenden jullie naar het buitenland?', answer: 'We verzenden binnen vijf werkdagen naar elk land.' },
  { code: 'ja', browser: 'ja-JP', question: '海外に発送できますか？', answer: 'すべての国へ5営業日以内にお届けします。' },
  { code: 'zh', browser: 'zh-CN', question: '你们发货到国外吗？', answer: '我们在五个工作日内发货到所有国家。' },
  { code: 'ar', browser: 'ar-EG', question: 'هل تشحنون إلى الخارج؟', answer: 'نشحن إلى جميع الدول خلال خمسة أيام عمل.' },
];

/** The last system prompt the fake model was sent (the factories' chatbots use the OpenAI protocol). */
const lastSystemPrompt = (): string => fakeLlm().requests.at(-1)!.body.messages[0].content;

const box = async (page: Page, selector: string) => {
  const found = await widget(page, selector).last().boundingBox();
  assert.ok(found, `${selector} is laid out`);
  return found;
};

/** `expression` evaluated in the page, with `panel` the widget's panel element (inside its shadow root). */
const aboutPanel = (page: Page, expression: string) =>
  page.evaluate<string>(`(() => { const panel = document.querySelector('#parley-widget').shadowRoot.querySelector('[data-parley="panel"]'); return ${expression}; })()`);

/** Set WIDGET_SCREENSHOTS=docs/images to refresh the pictures in docs/widget.md. */
const SCREENSHOTS = process.env.WIDGET_SCREENSHOTS;

describe("widget.js in the visitor's language (real Chromium)", function () {
  this.timeout(90_000);
  let node: Running;
  let base: string;
  let browser: Browser;
  let site: TestSite;
  const bots: Record<string, Chatbot> = {};

  before(async () => {
    ({ node, base } = await startBrowserNode('language-node'));
    const { company } = await make.workspace();
    await make.providerKey(company, 'openai');
    // `auto` (the default) follows the browser; the others are set on the chatbot.
    for (const language of ['auto', 'de', 'it']) {
      const bot = (bots[language] = await make.chatbot(company));
      if (language !== 'auto') await bot.update({ branding: { ...bot.branding, language } });
    }
    const page = (bot: Chatbot) => html(`<h1>Shop</h1><script src="${base}/widget.js" data-key="${bot.publicKey}" defer></script>`, '<meta charset="utf-8"><title>Shop</title>');
    site = await startSite({ '/': page(bots.auto!), '/de': page(bots.de!), '/it': page(bots.it!) });
    browser = await launchBrowser();
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await stopBrowserNode(node);
  });
  beforeEach(() => fakeLlm().reset());

  for (const { code, browser: locale, question, answer } of LANGUAGES) {
    it(`${code}: launcher, header, welcome and composer in ${locale}'s language, an answer laid out ${code === 'ar' ? 'right to left' : 'left to right'}, the AI told the language`, async () => {
      const words = widgetWords(code) as Record<string, string>;
      const context = await browser.newContext({ locale, viewport: { width: 1024, height: 800 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      fakeLlm().script({ reply: answer });

      await page.goto(site.url('/'));
      assert.equal(await widget(page, '[data-parley="launcher"] .label').innerText(), words.launcher);
      await widget(page, '[data-parley="launcher"]').click();
      await widget(page, '[data-parley="composer"]').waitFor();
      assert.equal(await widget(page, '.title').innerText(), words.title);
      assert.equal((await widget(page, '.welcome').innerText()).trim(), words.welcome);
      assert.equal(await widget(page, '[data-parley="composer"]').getAttribute('placeholder'), words.placeholder);
      const direction = await aboutPanel(page, 'getComputedStyle(panel).direction');
      assert.equal(direction, code === 'ar' ? 'rtl' : 'ltr');

      await sendInWidget(page, question);
      await widgetMessages(page, 'assistant').filter({ hasText: answer }).waitFor({ timeout: 15_000 });
      await widget(page, '[data-parley="handoff"]').filter({ hasText: words.human }).waitFor();
      assert.match(lastSystemPrompt(), new RegExp(`The visitor's language is [^,]+, language tag ${locale}:`));

      // The answer sits inside the panel, on the start side (right in Arabic); the visitor's own message on the other.
      const panel = await box(page, '[data-parley="panel"]');
      const reply = await box(page, '[data-parley="message"][data-role="assistant"] .bubble');
      const mine = await box(page, '[data-parley="message"][data-role="visitor"] .bubble');
      for (const bubble of [reply, mine]) assert.ok(bubble.x >= panel.x && bubble.x + bubble.width <= panel.x + panel.width + 0.5, `${JSON.stringify(bubble)} inside ${JSON.stringify(panel)}`);
      const centre = (b: { x: number; width: number }) => b.x + b.width / 2;
      if (code === 'ar') assert.ok(centre(reply) > centre(mine), 'in Arabic the answer is on the right');
      else assert.ok(centre(reply) < centre(mine), 'the answer is on the left');
      if (SCREENSHOTS && code === 'ar') await page.screenshot({ path: join(SCREENSHOTS, 'widget-language-ar.png'), clip: { x: panel.x - 20, y: panel.y - 20, width: panel.width + 40, height: 800 - panel.y + 20 } });
      assert.deepEqual(errors, []);
      await context.close();
    });
  }

  // The chatbot's setting beats the browser; a code without a catalogue shows English, yet the AI is told that language.
  const SETTINGS = [
    { title: "a chatbot's own language wins over the browser's", path: '/de', browser: 'fr-FR', shown: 'de', question: 'Hallo?', answer: 'Ja, gerne.', told: 'German, language tag de' },
    { title: 'a language without a catalogue shows English, and the AI still answers in that language', path: '/it', browser: 'ja-JP', shown: 'en', question: 'Spedite in Italia?', answer: 'Certo, spediamo ovunque.', told: 'Italian, language tag it' },
  ];
  for (const { title, path, browser: locale, shown, question, answer, told } of SETTINGS) {
    it(title, async () => {
      const context = await browser.newContext({ locale });
      const page = await context.newPage();
      fakeLlm().script({ reply: answer });
      await openWidget(page, site.url(path));
      assert.equal(await widget(page, '[data-parley="composer"]').getAttribute('placeholder'), widgetWords(shown).placeholder);
      assert.equal(await aboutPanel(page, "panel.closest('[lang]').getAttribute('lang')"), shown);
      await sendInWidget(page, question);
      await widgetMessages(page, 'assistant').filter({ hasText: answer }).waitFor({ timeout: 15_000 });
      assert.ok(lastSystemPrompt().includes(`The visitor's language is ${told}:`), lastSystemPrompt());
      await context.close();
    });
  }
});
