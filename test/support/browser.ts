import { Redis } from 'ioredis';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../../src/db/freePort';
import { REDIS_URL, TEST_ENV, TEST_REDIS_PREFIX } from './env';
import { fakeLlm } from './hooks';
import { childEnv, Running, SERVER } from './processes';
import { html, startSite, type TestSite } from './site';

/**
 * Flags for a headless Chromium in a container: no sandbox (we often run as root), no GPU, and no
 * background traffic (updates, sync, QUIC probes) that would make network-level tests noisy.
 */
const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A headless system Chromium driven by playwright-core (which ships no browser of its own).
 * `CHROMIUM_PATH` points at another binary; the caller closes the browser when done.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS],
  });
}

/**
 * A web node of the test server's cluster whose public URL (APP_URL) is its real address, so a
 * browser reaches its widget.js and Socket.IO. Heartbeats come every 120 s on it: whatever reaches a
 * page within seconds came over Socket.IO, not a poll.
 */
export async function startBrowserNode(nodeId: string, env: Record<string, string> = {}): Promise<{ node: Running; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const node = new Running(SERVER, [], {
    env: childEnv({ ...TEST_ENV, ...fakeLlm().envFor(), PORT: String(port), APP_URL: base, NODE_ID: nodeId, LOG_LEVEL: 'info', VISITOR_POLL_SECONDS: '120', ...env }),
  });
  await node.waitForLog((entry) => entry.msg === 'listening', 30_000);
  await freshLoopbackLimits();
  return { node, base };
}

/**
 * Every page of the run comes from 127.0.0.1, so the pages of all browser files would share the
 * widget's per-IP limits (20 streams a minute): each file starts with that address's budgets fresh,
 * as each real visitor has their own.
 */
async function freshLoopbackLimits(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${TEST_REDIS_PREFIX}rl:*:ip:127.0.0.1`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export async function stopBrowserNode(node: Running | undefined): Promise<void> {
  node?.child.kill('SIGTERM');
  await node?.exitWithin(15_000);
}

/** What a browser test file shares: a web node of its own, a shop on another origin embedding the widget, one Chromium. */
export interface ShopSuite {
  node: Running;
  /** The node's base URL. */
  base: string;
  browser: Browser;
  /** The shop: its `/` embeds the widget of the chatbot `keyOf` names when the page is served. */
  site: TestSite;
}

/**
 * Starts a `ShopSuite` before the file's tests and stops it after them (mocha hooks). The chatbot is
 * named per request, so each test may embed a chatbot of its own.
 */
export function shopSuite(nodeId: string, keyOf: () => string, options: { env?: Record<string, string>; body?: string; head?: string } = {}): ShopSuite {
  const suite = {} as ShopSuite;
  before(async () => {
    Object.assign(suite, await startBrowserNode(nodeId, options.env));
    const page = () => `${options.body ?? '<h1>Fjord Shop</h1>'}<script src="${suite.base}/widget.js" data-key="${keyOf()}" defer></script>`;
    suite.site = await startSite({ '/': () => html(page(), `<title>Fjord Shop</title>${options.head ?? ''}`) });
    suite.browser = await launchBrowser();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.site?.close();
    await stopBrowserNode(suite.node);
  });
  return suite;
}

/** The embedded widget on a page, driven through its `data-parley` hooks. */
export const widget = (page: Page, selector: string) => page.locator('#parley-widget').locator(selector);

export const widgetMessages = (page: Page, role: string) => widget(page, `[data-parley="message"][data-role="${role}"]`);

export async function openWidget(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await widget(page, '[data-parley="launcher"]').click();
  await widget(page, '[data-parley="composer"]').waitFor();
}

export async function sendInWidget(page: Page, text: string): Promise<void> {
  await widget(page, '[data-parley="composer"]').fill(text);
  await widget(page, '[data-parley="send"]').click();
}
