import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router, type Request, type Response } from 'express';
import { CLIENT_DIR, staticBody, staticText } from './assets';

/** index.html and inbox.css as written; the TypeScript modules as `npm run build` compiled them (dist/client/inbox). */
const SOURCE_DIR = join(CLIENT_DIR, 'inbox');
export const INBOX_BUILD_DIR = join(__dirname, '..', '..', 'client', 'inbox');
/** The service worker, compiled apart (WebWorker types, a classic script): client/inbox/worker/sw.ts. */
const WORKER_FILE = join(__dirname, '..', '..', 'client', 'inbox-worker', 'sw.js');

const JS = 'application/javascript; charset=utf-8';
// URLs carry no version, so browsers revalidate every time; the ETag makes that a 304.
const REVALIDATE = 'no-cache';
// Deep links are /inbox/conversations/<uuid>; anything much deeper is not a page of the app.
const MAX_DEPTH = 4;

/**
 * The page renders visitors' words, so it allows no script, style or connection from anywhere but
 * this server (Socket.IO included), and cannot be framed.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

type Serve = (req: Request, res: Response, cacheControl: string) => void;

/** The web inbox (issue 7): a small single-page app on the agent API, at `/inbox`. */
export function inboxAppRoutes(): Router {
  const router = Router();
  if (!existsSync(join(INBOX_BUILD_DIR, 'app.js'))) {
    router.use('/inbox', (_req, res) => void res.status(503).type('text').send('The web inbox is not built. Run `npm run build`.'));
    return router;
  }
  const modules = readdirSync(INBOX_BUILD_DIR).filter((name) => name.endsWith('.js')).sort();
  const files = new Map<string, Serve>(modules.map((name) => [name, staticText(join(INBOX_BUILD_DIR, name), JS)]));
  files.set('inbox.css', staticText(join(SOURCE_DIR, 'inbox.css'), 'text/css; charset=utf-8'));
  // /inbox/sw.js: its default scope is /inbox/ (the directory it is served from), exactly the app's.
  if (existsSync(WORKER_FILE)) files.set('sw.js', staticText(WORKER_FILE, JS));
  const page = pageRenderer(modules.filter((name) => name !== 'app.js'));

  router.get(/^\/inbox(?:\/.*)?$/, (req, res, next) => {
    const rest = req.path.slice('/inbox'.length);
    const file = files.get(rest.slice(1));
    if (file) return file(req, res, REVALIDATE);
    // A missing asset is a 404; every other path under /inbox is a page of the app (a deep link).
    if (/\.\w+$/.test(rest)) return next();
    const serve = page(rest);
    if (!serve) return next();
    res.set(PAGE_HEADERS);
    serve(req, res, REVALIDATE);
  });
  return router;
}

/**
 * index.html with its asset links relative to the requested path, so the app also works behind a
 * proxy that mounts Parley under a path prefix. One copy per path depth, made on first use.
 */
function pageRenderer(preloaded: string[]) {
  const template = readFileSync(join(SOURCE_DIR, 'index.html'), 'utf8');
  const copies = new Map<number, Serve>();
  return (rest: string): Serve | undefined => {
    // "/inbox" -> -1 ("inbox/..."), "/inbox/" -> 0 ("./..."), "/inbox/conversations/x" -> 1 ("../...").
    const depth = rest === '' ? -1 : rest.split('/').length - 2;
    if (depth > MAX_DEPTH) return undefined;
    let serve = copies.get(depth);
    if (!serve) {
      const root = depth === -1 ? 'inbox/' : depth === 0 ? './' : '../'.repeat(depth);
      const preload = preloaded.map((name) => `<link rel="modulepreload" href="${root}${name}">`).join('\n');
      serve = staticBody(Buffer.from(template.replace('{{PRELOAD}}', preload).replace(/\{\{ROOT\}\}/g, root)), 'text/html; charset=utf-8');
      copies.set(depth, serve);
    }
    return serve;
  };
}
