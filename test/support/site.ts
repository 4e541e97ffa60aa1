import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SitePage {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Never answer: for timeout tests. */
  hang?: boolean;
}

export interface TestSite {
  origin: string;
  url(path: string): string;
  /** Every request's path (with query), in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A tiny website on a random port: `pages` maps a path (with query) to its answer, or to a function
 * so a page can point at a server started later; unknown paths answer 404.
 */
export async function startSite(pages: Record<string, SitePage | (() => SitePage)>, host = '127.0.0.1'): Promise<TestSite> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const entry = pages[path];
    const page = typeof entry === 'function' ? entry() : entry;
    if (!page) {
      res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not found</h1>');
      return;
    }
    if (page.hang) return;
    res.writeHead(page.status ?? 200, { 'Content-Type': 'text/html; charset=utf-8', ...page.headers });
    // A client that stops reading (size cap) resets the connection: expected, not a test failure.
    res.on('error', () => undefined);
    res.end(page.body ?? '');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL on a port nothing listens on (bound, then released). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

/** A page of HTML with the given body content. */
export function html(body: string, head = ''): SitePage {
  return { body: `<!doctype html><html><head>${head}</head><body>${body}</body></html>` };
}
