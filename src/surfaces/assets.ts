import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Router, type Request, type Response } from 'express';
import { DEFAULT_LOGO_PATH } from '../domain/accounts/brand';
import { widgetSnippet } from '../domain/chatbots/widgetSnippet';
import type { Chatbot } from '../models';

/** Where the browser-side files live: `client/` at the project root (beside `dist/`). */
export const CLIENT_DIR = join(__dirname, '..', '..', '..', 'client');

/** The demo page's chatbot, present where the demo workspace is (embedded mode, PARLEY_DEMO=1). */
export interface AssetOptions {
  appUrl: string;
  demo?: Pick<Chatbot, 'publicKey' | 'name'>;
}

/** Where the widget's language catalogues live: one `<code>.json` per language (English is inside widget.js). */
const WIDGET_CATALOGUE_DIR = join(CLIENT_DIR, 'widget', 'i18n');

/** The languages the widget has a catalogue for, besides English. */
export const widgetCatalogueCodes = (): string[] =>
  readdirSync(WIDGET_CATALOGUE_DIR)
    .filter((file) => /^[a-z]{2}\.json$/.test(file))
    .map((file) => file.slice(0, 2))
    .sort();

/** Files browsers load from this server: the embed script and its catalogues, the default brand logo, and the demo page. */
export function assetRoutes(options: AssetOptions): Router {
  const router = Router();
  const widget = staticText(join(CLIENT_DIR, 'widget', 'widget.js'), 'application/javascript; charset=utf-8');
  // The snippet's URL carries no version, so browsers recheck often (ETag makes that a 304).
  router.get('/widget.js', (req, res) => widget(req, res, 'public, max-age=300'));
  const catalogues = new Map(widgetCatalogueCodes().map((code) => [code, staticText(join(WIDGET_CATALOGUE_DIR, `${code}.json`), 'application/json; charset=utf-8')]));
  // Changes with widget.js, so cached as briefly; an unknown code falls through to the usual 404.
  router.get('/widget/i18n/:language.json', (req, res, next) => {
    const catalogue = catalogues.get(req.params.language);
    if (!catalogue) return next();
    catalogue(req, res, 'public, max-age=300');
  });
  router.get(DEFAULT_LOGO_PATH, (_req, res) => res.sendFile(join(CLIENT_DIR, 'brand', 'logo.svg'), { maxAge: '1d' }));
  if (options.demo) {
    const html = demoPage(options.appUrl, options.demo);
    router.get('/', (_req, res) => res.type('html').setHeader('Cache-Control', 'no-cache').send(html));
  }
  return router;
}

/** Serves a file read once at start: gzipped when the client accepts it, with a content ETag. */
export function staticText(path: string, contentType: string) {
  return staticBody(readFileSync(path), contentType);
}

/** Serves bytes held in memory, as `staticText` does. */
export function staticBody(body: Buffer, contentType: string) {
  const gzipped = gzipSync(body, { level: 9 });
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return (req: Request, res: Response, cacheControl: string) => {
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('ETag', etag);
    res.setHeader('Vary', 'Accept-Encoding');
    // Any site embeds the script; it is public, so any origin may also fetch it.
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.headers['if-none-match'] === etag) return void res.status(304).end();
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.end(gzip ? gzipped : body);
  };
}

function demoPage(appUrl: string, demo: Pick<Chatbot, 'publicKey' | 'name'>): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const values: Record<string, string> = { BASE: appUrl, KEY: demo.publicKey, NAME: demo.name, SNIPPET: widgetSnippet(appUrl, demo.publicKey) };
  return readFileSync(join(CLIENT_DIR, 'demo', 'index.html'), 'utf8').replace(/\{\{(\w+)\}\}/g, (_, name: string) => escape(values[name] ?? ''));
}
