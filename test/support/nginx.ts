import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { freePort } from '../../src/db/freePort';
import { selfSignedCertificate } from './certificate';
import { ROOT } from './processes';

/** The files docs/deploy.md shows, laid out as under /etc/nginx. */
export const DEPLOY_NGINX = resolve(ROOT, 'deploy/nginx');
const SITE = 'sites-available/parley.conf';
const INCLUDED = ['parley/upstreams.conf', 'parley/proxy.conf'];
const NODES = 'parley/web-nodes.conf';

export interface ProxiedReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body as it arrived: each chunk with the milliseconds since the request went out. */
  chunks: Array<{ at: number; text: string }>;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** The client address nginx sees (any 127.x.y.z is this machine). */
  localAddress?: string;
}

/** A running nginx serving deploy/nginx's site over TLS in front of the given web nodes. */
export interface NginxSite {
  /** `https://127.0.0.1:<port>`: the site's TLS server. */
  url: string;
  /** `http://127.0.0.1:<port>`: the site's plain-HTTP server, which redirects. */
  httpUrl: string;
  /** The PEM of the site's self-signed certificate, for clients that verify TLS. */
  ca: string;
  request(method: string, path: string, options?: RequestOptions): Promise<ProxiedReply>;
  stop(): Promise<void>;
}

/** Debian installs nginx in /usr/sbin, which is not on every user's PATH. */
export function nginxBinary(): string {
  for (const dir of ['/usr/sbin', ...(process.env.PATH ?? '').split(delimiter)]) {
    if (dir && existsSync(join(dir, 'nginx'))) return join(dir, 'nginx');
  }
  throw new Error('nginx is not installed: apt-get install -y nginx');
}

/**
 * Renders deploy/nginx into a private directory (only what a machine differs by: listen addresses,
 * certificate paths and the web nodes) and runs nginx on it in the foreground.
 */
export async function startNginx(webNodes: string[]): Promise<NginxSite> {
  const binary = nginxBinary();
  const dir = mkdtempSync(join(tmpdir(), 'parley-nginx-'));
  const ports = { http: await freePort(), https: await freePort() };
  const certificate = selfSignedCertificate(dir);
  for (const sub of ['parley', 'sites-enabled']) mkdirSync(join(dir, sub));
  for (const file of INCLUDED) copyFileSync(join(DEPLOY_NGINX, file), join(dir, file));
  writeFileSync(join(dir, NODES), renderNodes(readFileSync(join(DEPLOY_NGINX, NODES), 'utf8'), webNodes));
  writeFileSync(
    join(dir, 'sites-enabled/parley.conf'),
    render(readFileSync(join(DEPLOY_NGINX, SITE), 'utf8'), [
      [/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${ports.http};`],
      [/^\s*listen \[::\]:80;\n/m, ''],
      [/^(\s*)listen 443 ssl http2;$/m, `$1listen 127.0.0.1:${ports.https} ssl http2;`],
      [/^\s*listen \[::\]:443 ssl http2;\n/m, ''],
      [/^(\s*ssl_certificate) .+;$/m, `$1 ${certificate.certFile};`],
      [/^(\s*ssl_certificate_key) .+;$/m, `$1 ${certificate.keyFile};`],
    ]),
  );
  writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir));

  const child = spawn(binary, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const errorLog = () => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');

  const deadline = Date.now() + 10_000;
  while (!(await accepts(ports.https))) {
    if (!running() || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${stderr} ${errorLog()}`);
    }
    await new Promise((wake) => setTimeout(wake, 25));
  }

  const url = `https://127.0.0.1:${ports.https}`;
  const ca = certificate.cert.toString();
  return {
    url,
    httpUrl: `http://127.0.0.1:${ports.http}`,
    ca,
    request: (method, path, options = {}) => send(`${url}${path}`, method, ca, options),
    async stop() {
      // SIGTERM is nginx's fast shutdown: open WebSockets do not hold it up.
      if (running()) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The template's first `server` line (its options included), once per web node. */
function renderNodes(template: string, webNodes: string[]): string {
  const example = /^server (\S+)( .*)?;$/m.exec(template);
  if (!example) throw new Error(`${NODES} has no "server address ...;" line to render`);
  const comments = template.split('\n').filter((line) => line.startsWith('#'));
  return [...comments, ...webNodes.map((node) => `server ${node}${example[2] ?? ''};`), ''].join('\n');
}

/** Each replacement must find its line, so a changed template fails here rather than half-rendered. */
function render(template: string, replacements: Array<[RegExp, string]>): string {
  return replacements.reduce((text, [pattern, replacement]) => {
    if (!pattern.test(text)) throw new Error(`${SITE} has no line matching ${String(pattern)}`);
    return text.replace(pattern, replacement);
  }, template);
}

/** What /etc/nginx/nginx.conf holds on a machine, pointed into `dir`. */
function mainConfig(dir: string): string {
  return [
    // Run as root, nginx's workers would switch to `nobody`, who cannot enter this private directory.
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 512; }',
    'http {',
    '    access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `    ${kind}_temp_path ${dir}/${kind}_temp;`),
    '    include sites-enabled/parley.conf;',
    '}',
    '',
  ].join('\n');
}

function accepts(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), answer(true)));
    socket.once('error', () => answer(false));
  });
}

/** An HTTPS request verified against the site's certificate, read chunk by chunk. */
function send(url: string, method: string, ca: string, options: RequestOptions): Promise<ProxiedReply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (body !== undefined) headers['Content-Type'] ??= 'application/json';
  const started = Date.now();
  return new Promise((resolveReply, reject) => {
    const req = httpsRequest(url, { method, headers, ca, localAddress: options.localAddress }, (res) => {
      const chunks: ProxiedReply['chunks'] = [];
      res.setEncoding('utf8');
      res.on('data', (text: string) => chunks.push({ at: Date.now() - started, text }));
      res.on('error', reject);
      res.on('end', () => resolveReply({ status: res.statusCode ?? 0, headers: res.headers, text: chunks.map((c) => c.text).join(''), chunks }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
