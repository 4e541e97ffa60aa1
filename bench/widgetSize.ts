import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync, constants, gunzipSync } from 'node:zlib';
import express from 'express';
import { assetRoutes, CLIENT_DIR } from '../src/surfaces/assets';
import type { BenchResult } from './support/report';

const GOAL_BYTES = 30 * 1024;

/** GET a path with the given Accept-Encoding; the body's bytes exactly as they came over the wire. */
function fetchRaw(port: number, path: string, encoding: string): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The embed script's size as browsers download it: `GET /widget.js` with `Accept-Encoding: gzip`
 * from the same asset routes a web node mounts (src/surfaces/assets.ts), served over HTTP in this
 * process. Baseline: the file itself, and what brotli would make of it.
 */
export async function widgetSize(): Promise<BenchResult> {
  const startedAt = new Date();
  const app = express().use(assetRoutes({ appUrl: 'http://127.0.0.1' }));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const port = (server.address() as AddressInfo).port;
    const gzipped = await fetchRaw(port, '/widget.js', 'gzip, deflate, br');
    const plain = await fetchRaw(port, '/widget.js', 'identity');
    if (gzipped.status !== 200 || gzipped.encoding !== 'gzip') throw new Error(`GET /widget.js answered ${gzipped.status} with Content-Encoding ${String(gzipped.encoding)}`);
    if (!gunzipSync(gzipped.body).equals(plain.body)) throw new Error('the gzipped /widget.js does not unzip to the plain one');
    const file = readFileSync(join(CLIENT_DIR, 'widget', 'widget.js'));
    const brotli = brotliCompressSync(file, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    return {
      name: 'widgetSize',
      title: 'GET /widget.js, gzipped as served',
      goal: `<= ${GOAL_BYTES} bytes (30 KB) gzipped`,
      pass: gzipped.body.length <= GOAL_BYTES,
      figures: { gzip_bytes: gzipped.body.length, served_plain_bytes: plain.body.length },
      baseline: { file_bytes: file.length, brotli_q11_bytes: brotli.length },
      settings: { goal_bytes: GOAL_BYTES, file: 'client/widget/widget.js' },
      notes: [
        'served by assetRoutes (src/surfaces/assets.ts) over HTTP in the bench process: the file read once at start and gzipped at level 9, Content-Encoding: gzip when the request accepts it',
        'brotli_q11_bytes: what the same file would weigh with brotli at quality 11 (not served; for comparison)',
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  } finally {
    server.close();
  }
}
