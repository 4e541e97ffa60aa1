import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Conversation, type Chatbot, type Company, type User } from '../../src/models';
import { launchBrowser, openWidget, sendInWidget, startBrowserNode, stopBrowserNode, widget, widgetMessages } from '../support/browser';
import * as make from '../support/factories';
import { fakeLlm, server } from '../support/hooks';
import { request } from '../support/http';
import { freshIp } from '../support/portal';
import { cliOk, type Running } from '../support/processes';
import { html, startSite, type SitePage, type TestSite } from '../support/site';
import { widgetWords } from '../support/widgetWords';

/** Set WIDGET_SCREENSHOTS=docs/images to refresh the pictures in docs/widget.md. */
const SCREENSHOTS = process.env.WIDGET_SCREENSHOTS;
const VIEWPORT = { width: 1280, height: 900 };
/** The default title ends in an emoji, and this machine's Chromium has no emoji font: pictures use this one. */
const TITLE = 'Fjord Shop';
const WORDS = widgetWords('en') as Record<string, string>;

interface Shop {
  company: Company;
  owner: User;
  bot: Chatbot;
  token: string;
  /** The shop's page with the widget embedded; `suffix` is another page of the same shop. */
  url(suffix?: string): string;
}

type Box = { x: number; y: number; width: number; height: number };

/** `#rrggbb` as getComputedStyle writes it. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** A computed style of the first element matching `selector` inside the widget's shadow root. */
const styleOf = (page: Page, selector: string, property: string) =>
  page.evaluate<string>(
    `getComputedStyle(document.querySelector('#parley-widget').shadowRoot.querySelector(${JSON.stringify(selector)})).getPropertyValue(${JSON.stringify(property)})`,
  );

const box = async (page: Page, selector: string): Promise<Box> => {
  const found = await widget(page, selector).first().boundingBox();
  assert.ok(found, `${selector} is laid out`);
  return found;
};

/** Equal to within half a pixel (sub-pixel layout). */
const near = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) <= 0.5, `${what}: ${actual}, expected ${expected}`);

/** A round avatar picture, served by the shop's site (the widget drops an image that fails to load). */
const avatar = (colour: string): SitePage => ({
  headers: { 'Content-Type': 'image/svg+xml' },
  body: `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="${colour}"/><circle cx="32" cy="25" r="11" fill="#fff" fill-opacity=".85"/><path d="M12 54c4-11 12-15 20-15s16 4 20 15" fill="#fff" fill-opacity=".85"/></svg>`,
});

describe('every visible widget setting, set through the CLI or the portal (real Chromium)', function () {
  this.timeout(120_000);
  let node: Running;
  let base: string;
  let browser: Browser;
  let site: TestSite;
  /** The site's pages; shops add theirs as they are made (startSite reads this object on each request). */
  const pages: Record<string, SitePage> = {
    '/avatars/ann.svg': avatar('#f59e0b'),
    '/avatars/ben.svg': avatar('#10b981'),
    '/avatars/cleo.svg': avatar('#8b5cf6'),
  };
  let contexts: BrowserContext[] = [];
  let pageErrors: string[] = [];
  let shops = 0;

  before(async () => {
    ({ node, base } = await startBrowserNode('settings-node'));
    site = await startSite(pages);
    browser = await launchBrowser();
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await stopBrowserNode(node);
  });
  beforeEach(() => fakeLlm().reset());
  afterEach(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    contexts = [];
    const errors = pageErrors;
    pageErrors = [];
    assert.deepEqual(errors, [], 'no script errors in the pages');
  });

  /**
   * A workspace of its own (the brand line is the workspace's) with a portal token and a chatbot
   * whose settings are set through the portal, embedded on `/shop-N` (`body` is the page's content).
   */
  async function openShop(branding: Record<string, unknown> = {}, body = '<h1>Fjord Shop</h1>'): Promise<Shop> {
    const { company, owner } = await make.workspace({ portal: true });
    await make.providerKey(company, 'openai');
    const bot = await make.chatbot(company);
    const path = `/shop-${++shops}`;
    const page = html(`${body}<script src="${base}/widget.js" data-key="${bot.publicKey}" defer></script>`, `<meta charset="utf-8"><title>${TITLE}</title>`);
    const shop: Shop = {
      company,
      owner,
      bot,
      token: await make.token(owner, 'portal'),
      url: (suffix = '') => {
        pages[path + suffix] = page;
        return site.url(path + suffix);
      },
    };
    await viaPortal(shop, { title: TITLE, ...branding });
    return shop;
  }

  /** `PUT /api/portal/chatbots/{key}`: the portal takes every branding field at the top level. */
  async function viaPortal(shop: Shop, fields: Record<string, unknown>): Promise<void> {
    const reply = await request('PUT', `/api/portal/chatbots/${shop.bot.publicKey}`, {
      token: shop.token,
      body: { name: shop.bot.name, ...fields },
      headers: { 'X-Forwarded-For': freshIp() },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  }

  /** `parley chatbot update`: the operator's way. */
  const viaCli = (shop: Shop, flags: string[]) => cliOk(['chatbot', 'update', '--chatbot', shop.bot.publicKey, ...flags]);

  /** A browser tab of its own (storage included); motion is reduced so the panel is measured where it rests. */
  async function newTab(options: { locale?: string; init?: string } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: 'reduce', locale: options.locale ?? 'en-US' });
    contexts.push(context);
    if (options.init) await context.addInitScript(options.init);
    const page = await context.newPage();
    context.on('weberror', (error) => pageErrors.push(error.error().message));
    return page;
  }

  /** Saves the part of the viewport holding these widget parts (with a margin) as docs/images/<name>.png. */
  async function screenshot(page: Page, name: string, selectors: string[]): Promise<void> {
    if (!SCREENSHOTS) return;
    const boxes = await Promise.all(selectors.map((selector) => box(page, selector)));
    const x = Math.max(0, Math.min(...boxes.map((b) => b.x)) - 24);
    const y = Math.max(0, Math.min(...boxes.map((b) => b.y)) - 24);
    const right = Math.min(VIEWPORT.width, Math.max(...boxes.map((b) => b.x + b.width)) + 24);
    const bottom = Math.min(VIEWPORT.height, Math.max(...boxes.map((b) => b.y + b.height)) + 24);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), clip: { x, y, width: right - x, height: bottom - y } });
  }

  const conversationOf = async (page: Page) => {
    const id = await page.evaluate<string | undefined>(`Object.entries(localStorage).find(([key]) => key.endsWith(':conversation'))?.[1]`);
    assert.ok(id, 'the widget keeps its conversation id');
    const conversation = await Conversation.findOne({ where: { publicId: id } });
    assert.ok(conversation);
    return conversation;
  };

  it('theme and primary colour paint the panel, the header, the launcher and the visitor bubbles', async () => {
    const shop = await openShop();
    const VARIANTS = [
      { theme: 'midnight', primary_color: '#6366f1', panel: '#0f172a', text: '#e2e8f0', onAccent: '#ffffff' },
      { theme: 'ocean', primary_color: '#0a6cbc', panel: '#f8fbff', text: '#0f2940', onAccent: '#ffffff' },
      // A light accent gets dark text on it.
      { theme: 'sunset', primary_color: '#fdba74', panel: '#fffaf5', text: '#3b1d0e', onAccent: '#111827' },
    ];
    let first: Page | undefined;
    for (const [i, { theme, primary_color, panel, text, onAccent }] of VARIANTS.entries()) {
      if (i === 0) await viaCli(shop, ['--branding-json', JSON.stringify({ theme, primary_color })]);
      else await viaPortal(shop, { theme, primary_color });
      // A new tab of the same browser: the conversation comes back, with the panel closed.
      const page = first ? await first.context().newPage() : await newTab();
      await openWidget(page, shop.url());
      if (!first) {
        first = page;
        fakeLlm().script({ reply: 'Yes: every order ships within two working days.' });
        await sendInWidget(page, 'Do you ship to Norway?');
      }
      await widgetMessages(page, 'assistant').filter({ hasText: 'two working days' }).waitFor({ timeout: 15_000 });

      assert.equal(await widget(page, '.pw').getAttribute('data-theme'), theme);
      assert.equal(await styleOf(page, '[data-parley="panel"]', 'background-color'), rgb(panel));
      assert.equal(await styleOf(page, '[data-parley="panel"]', 'color'), rgb(text));
      for (const part of ['.head', '[data-parley="launcher"]', '.msg.visitor .bubble', '[data-parley="send"]']) {
        assert.equal(await styleOf(page, part, 'background-color'), rgb(primary_color), `${theme}: ${part} has the primary colour`);
      }
      for (const part of ['.head', '.msg.visitor .bubble']) assert.equal(await styleOf(page, part, 'color'), rgb(onAccent), `${theme}: text on ${part}`);
      await screenshot(page, `widget-theme-${theme}`, ['[data-parley="panel"]', '[data-parley="launcher"]']);
    }
  });

  it('position, layout and composer style place and size the panel and shape the composer', async () => {
    const shop = await openShop();
    const VARIANTS = [
      { position: 'left', layout: 'compact', composer_style: 'flat', size: [340, 500], corner: '0px', picture: 'widget-left-compact' },
      { position: 'right', layout: 'expanded', composer_style: 'pill', size: [440, 760], corner: '28px', picture: 'widget-expanded-pill' },
      { position: 'right', layout: 'standard', composer_style: 'rounded', size: [380, 620], corner: '16px', picture: '' },
    ];
    for (const [i, { position, layout, composer_style, size, corner, picture }] of VARIANTS.entries()) {
      const branding = { position, layout, composer_style };
      if (i === 0) await viaCli(shop, ['--branding-json', JSON.stringify(branding)]);
      else await viaPortal(shop, branding);
      const page = await newTab();
      await openWidget(page, shop.url());
      const launcher = await box(page, '[data-parley="launcher"]');
      const panel = await box(page, '[data-parley="panel"]');
      // 20 px from the chosen side of the window, for both.
      for (const [what, b] of [['launcher', launcher], ['panel', panel]] as const) {
        if (position === 'left') near(b.x, 20, `${position}: ${what}'s left edge`);
        else near(b.x + b.width, VIEWPORT.width - 20, `${position}: ${what}'s right edge`);
      }
      near(panel.width, size[0]!, `${layout} width`);
      near(panel.height, size[1]!, `${layout} height`);
      assert.equal(await styleOf(page, '.composer', 'border-top-left-radius'), corner, `${composer_style} composer corners`);
      const composer = await box(page, '.composer');
      if (composer_style === 'flat') near(composer.width, panel.width, 'a flat composer spans the panel');
      else assert.ok(composer.width < panel.width - 20, `a ${composer_style} composer sits inside margins`);
      if (composer_style === 'pill') assert.equal(await styleOf(page, '[data-parley="send"]', 'border-top-left-radius'), '50%');
      if (picture) await screenshot(page, picture, ['[data-parley="panel"]', '[data-parley="launcher"]']);
    }
  });

  it('launcher: a pill with its text, a circle without text, a small icon, a tab on the side', async () => {
    const shop = await openShop();
    const VARIANTS = [
      { launcher: 'bubble', launcher_text: 'Ask us anything' },
      { launcher: 'bubble', launcher_text: '' },
      { launcher: 'icon', launcher_text: 'Ask us anything' },
      { launcher: 'tab', launcher_text: 'Ask us anything' },
    ];
    for (const branding of VARIANTS) {
      await viaPortal(shop, branding);
      const page = await newTab();
      await page.goto(shop.url());
      const launcher = widget(page, '[data-parley="launcher"]');
      await launcher.waitFor();
      const shape = await box(page, '[data-parley="launcher"]');
      const label = widget(page, '[data-parley="launcher"] .label');
      const what = `${branding.launcher} "${branding.launcher_text}"`;
      if (branding.launcher === 'bubble' && branding.launcher_text) {
        assert.equal(await label.innerText(), branding.launcher_text);
        near(shape.height, 56, what);
        assert.ok(shape.width > 120, `${what} is a pill holding its text`);
      } else {
        assert.equal(await label.count(), branding.launcher === 'tab' ? 1 : 0, `${what}: the label`);
      }
      if (branding.launcher === 'bubble' && !branding.launcher_text) {
        near(shape.width, 56, what);
        near(shape.height, 56, what);
        assert.equal(await launcher.getAttribute('aria-label'), WORDS.launcher, 'still named for screen readers');
      }
      if (branding.launcher === 'icon') {
        near(shape.width, 48, what);
        near(shape.height, 48, what);
        assert.equal(await launcher.getAttribute('aria-label'), branding.launcher_text);
      }
      if (branding.launcher === 'tab') {
        assert.equal(await styleOf(page, '[data-parley="launcher"]', 'writing-mode'), 'vertical-rl');
        near(shape.x + shape.width, VIEWPORT.width, 'the tab touches the right edge');
        near(shape.y + shape.height / 2, VIEWPORT.height / 2, 'the tab is centred vertically');
        assert.ok(shape.height > shape.width, 'the tab runs upwards');
        assert.equal(await label.innerText(), branding.launcher_text);
        await screenshot(page, 'widget-launcher-tab', ['[data-parley="launcher"]']);
      }
      await launcher.click();
      await widget(page, '[data-parley="composer"]').waitFor();
      if (branding.launcher === 'tab') {
        const panel = await box(page, '[data-parley="panel"]');
        near(panel.y + panel.height, VIEWPORT.height - 20, 'with a tab the panel sits 20 px above the bottom');
      }
    }
  });

  it('quick replies show before the first message and a tap sends one; agent avatars overlap in the header', async () => {
    const shop = await openShop({
      quick_replies: ['Shipping times', 'Returns and refunds'],
      agent_avatars: ['ann', 'ben', 'cleo'].map((name) => site.url(`/avatars/${name}.svg`)),
    });
    const page = await newTab();
    await openWidget(page, shop.url());
    const chips = widget(page, '[data-parley="quick-reply"]');
    assert.deepEqual(await chips.allInnerTexts(), ['Shipping times', 'Returns and refunds']);

    const team = widget(page, '.team img');
    assert.equal(await team.count(), 3);
    await page.waitForFunction(`[...document.querySelector('#parley-widget').shadowRoot.querySelectorAll('.team img')].every((img) => img.complete && img.naturalWidth > 0)`);
    const faces = await Promise.all([0, 1, 2].map(async (i) => (await team.nth(i).boundingBox())!));
    for (const face of faces) near(face.width, 28, 'an avatar is 28 px');
    assert.ok(faces[1]!.x < faces[0]!.x + faces[0]!.width && faces[2]!.x < faces[1]!.x + faces[1]!.width, 'the avatars overlap');
    const head = await box(page, '.head');
    assert.ok(faces.every((face) => face.y >= head.y && face.y + face.height <= head.y + head.height), 'in the header');
    await screenshot(page, 'widget-quick-replies', ['[data-parley="panel"]', '[data-parley="launcher"]']);

    fakeLlm().script({ reply: 'You can return anything within 30 days.' });
    await chips.filter({ hasText: 'Returns and refunds' }).click();
    await widgetMessages(page, 'assistant').filter({ hasText: 'within 30 days' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await widgetMessages(page, 'visitor').allInnerTexts(), ['Returns and refunds']);
    assert.equal(fakeLlm().requests.at(-1)!.body.messages.at(-1).content, 'Returns and refunds', 'the AI was asked the tapped text');
    assert.equal(await chips.first().isHidden(), true, 'the chips go once the visitor has spoken');
  });

  describe('proactive message', () => {
    const MESSAGE = 'Need a hand choosing a size?';
    const proactive = (settings: Record<string, unknown>) => ({
      // live_visitors: the first heartbeat leaves right after the proactive message is armed (see settled).
      live_visitors: true,
      avatar_url: site.url('/avatars/ann.svg'),
      proactive: { enabled: true, message: MESSAGE, delay: 0, scroll: 0, exit_intent: false, url_contains: '', frequency: 'always', ...settings },
    });
    const bubble = (page: Page) => widget(page, '[data-parley="proactive"]');

    /** Loads the page and waits until the widget has armed its proactive message (it then sends its first heartbeat). */
    async function settled(page: Page, url: string): Promise<void> {
      const beat = page.waitForRequest((req) => req.url().endsWith('/heartbeat'));
      await page.goto(url);
      await beat;
    }

    it('shows after its delay, not before (the page clock is driven by the test)', async () => {
      const shop = await openShop(proactive({ delay: 30 }));
      const page = await newTab();
      await page.clock.install();
      await settled(page, shop.url());
      assert.equal(await bubble(page).isHidden(), true, 'not at once');
      await page.clock.fastForward(15_000);
      assert.equal(await bubble(page).isHidden(), true, 'not after about 15 s');
      await page.clock.fastForward(20_000);
      await bubble(page).waitFor();
      assert.equal(await widget(page, '[data-parley="proactive"] .text').innerText(), MESSAGE);
      assert.equal(await widget(page, '[data-parley="proactive"] img').count(), 1, 'with the avatar');
      await screenshot(page, 'widget-proactive', ['[data-parley="proactive"]', '[data-parley="launcher"]']);
      // Its text opens the chat.
      await widget(page, '[data-parley="proactive"] .text').click();
      await widget(page, '[data-parley="composer"]').waitFor();
      assert.equal(await bubble(page).isHidden(), true);
    });

    it('shows once the page is scrolled the given percentage', async () => {
      const shop = await openShop(proactive({ scroll: 50 }), '<h1>Fjord Shop</h1><div style="height:4000px"></div>');
      const page = await newTab();
      await settled(page, shop.url());
      /** Scrolls to `percent` of the page and resolves after the scroll listeners (the widget's first) have run. */
      const scrollTo = (percent: number) =>
        page.evaluate(`new Promise((done) => {
          addEventListener('scroll', () => done(), { once: true });
          scrollTo(0, (document.documentElement.scrollHeight - innerHeight) * ${percent / 100});
        })`);
      await scrollTo(30);
      assert.equal(await bubble(page).isHidden(), true, 'not at 30 %');
      await scrollTo(60);
      await bubble(page).waitFor();
    });

    it('shows on exit intent: the pointer leaving through the top of the window', async () => {
      const shop = await openShop(proactive({ exit_intent: true }));
      const page = await newTab();
      await settled(page, shop.url());
      // Moving on the page, then out through the bottom and back: no exit intent.
      for (const y of [500, 300, VIEWPORT.height + 5, 400]) await page.mouse.move(600, y);
      assert.equal(await bubble(page).isHidden(), true, 'not when the pointer moves on the page or leaves through the bottom');
      await page.mouse.move(600, -5);
      await bubble(page).waitFor();
    });

    it('shows only on pages whose address matches, once per session or always', async () => {
      const shop = await openShop(proactive({ url_contains: '/pricing', frequency: 'once_per_session' }));
      const page = await newTab();
      await settled(page, shop.url('/home'));
      assert.equal(await bubble(page).isHidden(), true, 'not on /home');
      await settled(page, shop.url('/pricing'));
      await bubble(page).waitFor();
      await settled(page, shop.url('/pricing?plan=team'));
      assert.equal(await bubble(page).isHidden(), true, 'once per session: not again in this tab');
      const otherTab = await page.context().newPage();
      await settled(otherTab, shop.url('/pricing'));
      await bubble(otherTab).waitFor(); // another tab is another session

      await viaPortal(shop, { proactive: { frequency: 'always' } });
      for (let visit = 0; visit < 2; visit++) {
        await settled(page, shop.url('/pricing'));
        await bubble(page).waitFor();
      }
    });
  });

  it('pre-chat form: its fields shown instead of the composer, required ones enforced, the answers stored', async () => {
    const shop = await openShop();
    const form = {
      enabled: true,
      greeting: 'Before we start, who are we talking to?',
      fields: [
        { field: 'name', label: 'Your name', type: 'text', required: true },
        { field: 'email', label: 'Email', type: 'email', required: true },
        { field: 'phone', label: 'Phone', type: 'tel', required: false },
      ],
    };
    await viaCli(shop, ['--prechat-json', JSON.stringify(form)]);
    const page = await newTab();
    await page.goto(shop.url());
    await widget(page, '[data-parley="launcher"]').click();
    const prechat = widget(page, '[data-parley="prechat"]');
    await prechat.waitFor();
    assert.equal(await widget(page, '[data-parley="composer"]').isHidden(), true, 'no composer before the form');
    assert.equal(await widget(page, '[data-parley="prechat"] p').innerText(), form.greeting);
    assert.deepEqual(
      (await widget(page, '[data-parley="prechat"] label > span').allInnerTexts()).map((text) => text.trim()),
      ['Your name *', 'Email *', 'Phone'],
    );
    assert.deepEqual(await Promise.all(['name', 'email', 'phone'].map((name) => widget(page, `input[name="${name}"]`).getAttribute('type'))), ['text', 'email', 'tel']);
    await screenshot(page, 'widget-prechat', ['[data-parley="panel"]', '[data-parley="launcher"]']);

    const input = (name: string) => widget(page, `[data-parley="prechat"] input[name="${name}"]`);
    const start = widget(page, '[data-parley="prechat"] button[type="submit"]');
    const refused = async (field: string, why: string) => {
      await start.click();
      assert.equal(await prechat.isVisible(), true, `${why}: the form stays`);
      assert.equal(await widget(page, `[data-parley="prechat"] input[name="${field}"]:invalid`).count(), 1, `${why}: ${field} is flagged`);
    };
    await refused('name', 'empty');
    await input('name').fill('   ');
    await input('email').fill('ada@example.com');
    await refused('name', 'a name of spaces');
    await input('name').fill('Ada Lovelace');
    await input('email').fill('not an address');
    await refused('email', 'an email without @');
    await input('email').fill('ada@example.com');
    await start.click(); // the phone is optional
    await widget(page, '[data-parley="composer"]').waitFor();
    assert.equal(await prechat.isHidden(), true);

    fakeLlm().script({ reply: 'Hello Ada, how can I help?' });
    await sendInWidget(page, 'Hi there');
    await widgetMessages(page, 'assistant').filter({ hasText: 'Hello Ada' }).waitFor({ timeout: 15_000 });
    const conversation = await conversationOf(page);
    assert.deepEqual([conversation.visitorName, conversation.visitorEmail, conversation.visitorPhone], ['Ada Lovelace', 'ada@example.com', null]);
  });

  describe('sound', () => {
    /** Stands in for WebAudio: counts the contexts made and the chimes started (one oscillator each). */
    const COUNT_CHIMES = `
      window.__chimes = 0;
      window.__audioContexts = 0;
      const param = { setValueAtTime() {}, exponentialRampToValueAtTime() {} };
      window.AudioContext = class {
        constructor() { window.__audioContexts++; this.state = 'running'; this.currentTime = 0; this.destination = {}; }
        resume() { return Promise.resolve(); }
        createGain() { return { gain: param, connect() {} }; }
        createOscillator() { return { frequency: param, connect() {}, start() { window.__chimes++; }, stop() {} }; }
      };`;

    for (const sound of [true, false]) {
      it(`${sound ? 'on' : 'off'}: an agent message while the panel is closed ${sound ? 'plays a chime' : 'stays silent'}`, async () => {
        const shop = await openShop();
        if (!sound) await viaPortal(shop, { sound: false });
        const page = await newTab({ init: COUNT_CHIMES });
        // Socket.IO's CONNECT answer ("40...") means the widget's socket sits in its conversation's room.
        const joined = new Promise<void>((resolve) => page.on('websocket', (ws) => ws.on('framereceived', (frame) => String(frame.payload).startsWith('40') && resolve())));
        fakeLlm().script({ reply: 'A teammate can help with that.' });
        await openWidget(page, shop.url());
        await sendInWidget(page, 'Can a person check my order?');
        await widgetMessages(page, 'assistant').filter({ hasText: 'A teammate' }).waitFor({ timeout: 15_000 });
        await joined;
        await widget(page, '[data-parley="launcher"]').click();
        await widget(page, '[data-parley="panel"]').waitFor({ state: 'hidden' });

        const conversation = await conversationOf(page);
        await server().actors.ask('conversation', conversation.publicId, { type: 'agentReply', userId: shop.owner.id, text: 'Hi, Sam here. Checking now.' });
        // The closed panel shows the agent's message by the launcher; the chime, if any, played with it.
        await widget(page, '[data-parley="proactive"]').filter({ hasText: 'Sam here' }).waitFor({ timeout: 10_000 });
        assert.deepEqual(await page.evaluate<number[]>('[window.__audioContexts, window.__chimes]'), sound ? [1, 1] : [0, 0]);
      });
    }
  });

  it("language: the chatbot's language beats the browser's, and auto follows the browser", async () => {
    const shop = await openShop({ language: 'es' });
    const spanish = widgetWords('es') as Record<string, string>;
    const page = await newTab({ locale: 'en-US' });
    fakeLlm().script({ reply: 'Sí, enviamos a Noruega.' });
    await page.goto(shop.url());
    assert.equal(await widget(page, '[data-parley="launcher"] .label').innerText(), spanish.launcher);
    await widget(page, '[data-parley="launcher"]').click();
    await widget(page, '[data-parley="composer"]').waitFor();
    assert.equal(await widget(page, '.pw').getAttribute('lang'), 'es');
    assert.equal((await widget(page, '.welcome').innerText()).trim(), spanish.welcome);
    assert.equal(await widget(page, '[data-parley="composer"]').getAttribute('placeholder'), spanish.placeholder);
    await sendInWidget(page, '¿Envían a Noruega?');
    await widgetMessages(page, 'assistant').filter({ hasText: 'enviamos a Noruega' }).waitFor({ timeout: 15_000 });
    assert.match(fakeLlm().requests.at(-1)!.body.messages[0].content, /The visitor's language is Spanish, language tag es:/);

    await viaPortal(shop, { language: 'auto' });
    const english = await newTab({ locale: 'en-GB' });
    await english.goto(shop.url());
    assert.equal(await widget(english, '[data-parley="launcher"] .label').innerText(), WORDS.launcher);
    assert.equal(await widget(english, '.pw').getAttribute('lang'), 'en');
  });

  it("powered_by: the workspace brand's line, a custom one, none when white-labelled", async () => {
    const shop = await openShop();
    const line = async () => {
      const page = await newTab();
      await openWidget(page, shop.url());
      const foot = widget(page, '[data-parley="powered-by"]');
      return (await foot.count()) ? foot.innerText() : null;
    };
    const brand = (poweredBy: string) => cliOk(['workspace', 'brand', '--company', String(shop.company.id), '--powered-by', poweredBy]);
    assert.equal(await line(), 'Powered by Parley');
    await brand('Acme Support');
    assert.equal(await line(), 'Powered by Acme Support');
    await brand('');
    assert.equal(await line(), null, 'white-label: no line at all');
  });
});
