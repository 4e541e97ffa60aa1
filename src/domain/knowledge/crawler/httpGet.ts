import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AddressRefused, checkLiteralHost, guardedLookup, type AddressPolicy } from '../../../net/outboundAddress';

/** Keep-alive agents owned by one crawl: pooled sockets must never outlive the policy they were vetted under. */
export interface Agents { http: http.Agent; https: https.Agent }

export interface HopOptions {
  policy: AddressPolicy;
  userAgent: string;
  /** Connect and idle timeout; a whole hop (headers + body) may take at most 3× this. */
  timeoutMs: number;
  agents?: Agents;
  signal?: AbortSignal;
}

/** A fetch that did not produce a usable response; `reason` is shown to users. */
export class FetchFailure extends Error {
  override name = 'FetchFailure';
  constructor(readonly reason: string, readonly permanent: boolean, readonly status?: number) {
    super(reason);
  }
}

export interface Hop { res: IncomingMessage; readBody(maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> }

/** Issues one GET (no redirect following) through the address policy. */
export function getOnce(url: URL, options: HopOptions): Promise<Hop> {
  let timedOut = false;
  const fail = (err: unknown) => toFailure(err, url, timedOut ? options.timeoutMs : undefined);
  try {
    checkLiteralHost(url.hostname, options.policy);
  } catch (err) {
    return Promise.reject(fail(err));
  }
  const client = url.protocol === 'https:' ? https : http;
  const agent = options.agents ? options.agents[url.protocol === 'https:' ? 'https' : 'http'] : false;
  return new Promise<Hop>((resolve, reject) => {
    const req = client.request(url, {
      method: 'GET',
      agent,
      lookup: guardedLookup(options.policy),
      timeout: options.timeoutMs,
      signal: options.signal,
      headers: {
        'User-Agent': options.userAgent,
        Accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1',
        'Accept-Encoding': 'gzip, deflate, br',
      },
    });
    const timeOut = () => {
      timedOut = true;
      req.destroy(new Error('timed out'));
    };
    // Idle timeouts reset on every byte, so a server dripping bytes needs an overall deadline too.
    const deadline = setTimeout(timeOut, options.timeoutMs * 3);
    req.on('timeout', timeOut);
    req.on('close', () => clearTimeout(deadline));
    const onError = (err: unknown) => reject(fail(err));
    req.on('error', onError);
    req.on('response', (res) => {
      // From here errors surface through the body stream, which readBody maps.
      req.off('error', onError);
      req.on('error', () => undefined);
      const readBody = (maxBytes: number) => readCapped(req, res, maxBytes).catch((err: unknown) => Promise.reject(fail(err)));
      resolve({ res, readBody });
    });
    req.end();
  });
}

function decoderFor(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const noop = () => undefined;
  if (encoding === 'identity' || encoding === '') return res;
  if (encoding === 'gzip' || encoding === 'x-gzip') return pipeline(res, zlib.createGunzip(), noop);
  if (encoding === 'deflate') return pipeline(res, zlib.createInflate(), noop);
  if (encoding === 'br') return pipeline(res, zlib.createBrotliDecompress(), noop);
  throw new FetchFailure(`unsupported content encoding ${encoding}`, true);
}

/** Reads at most `maxBytes` decoded bytes; past the cap it keeps what it has and drops the connection. */
async function readCapped(req: http.ClientRequest, res: IncomingMessage, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const stream = decoderFor(res);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated) req.destroy();
  return { body: Buffer.concat(chunks, size), truncated };
}

/** Maps socket/DNS/policy errors to readable reasons; `timeoutMs` is set when our own timer fired. */
function toFailure(err: unknown, url: URL, timeoutMs: number | undefined): unknown {
  if (err instanceof FetchFailure) return err;
  if (err instanceof AddressRefused) return new FetchFailure(err.message, true);
  if (!(err instanceof Error)) return err;
  if (err.name === 'AbortError') return err; // the caller's signal: not a failure of this page
  if (timeoutMs !== undefined) return new FetchFailure(`timed out after ${timeoutMs} ms`, false);
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new FetchFailure(`could not resolve ${url.hostname}`, false);
    case 'ECONNREFUSED':
      return new FetchFailure(`connection refused by ${url.host}`, false);
    case 'ECONNRESET':
      return new FetchFailure(`connection reset by ${url.host}`, false);
    default:
      if (code?.startsWith('Z_')) return new FetchFailure('the page could not be decompressed', true);
      return new FetchFailure(`network error: ${err.message}`, false);
  }
}
