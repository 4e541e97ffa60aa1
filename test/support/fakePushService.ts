import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from './certificate';

/**
 * A local HTTPS stand-in for a push service (FCM, Mozilla autopush, ...). It checks every request
 * the way a real one does, independently of web-push: the VAPID `Authorization: vapid t=<JWT>, k=<key>`
 * (ES256 signature over the JWT with the key sent, `aud` = this origin, `exp` within 24 h, a `sub`),
 * the headers RFC 8030 asks for, and it DECRYPTS the body (RFC 8291 key derivation, RFC 8188
 * aes128gcm records) with the subscription's private key, written here from the RFCs with node:crypto.
 * It answers 201, or statuses a test scripted per subscription (404, 410, 429 with Retry-After, 503).
 */

export interface FakeSubscription {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

export interface PushRequest {
  subscription: string;
  /** What this service answered. */
  status: number;
  at: number;
  ttl: number | null;
  urgency: string | null;
  /** Decrypted and parsed; absent when the request failed a check (`error` says which). */
  payload?: Record<string, unknown>;
  vapid?: VapidClaims & { k: string };
  error?: string;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
}

interface Keys {
  ecdh: ECDH;
  publicKey: Buffer;
  auth: Buffer;
}

export interface FakePushService {
  origin: string;
  /** PEM file of this service's self-signed certificate, for a child process's NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** That certificate (PEM), for push delivery's own agent (`jobProcessors(ctx, { push: { ca } })`). */
  ca: Buffer;
  /** A TLS agent trusting that certificate, for in-process senders. */
  agent: Agent;
  /** A new device: an endpoint here and its public keys, as a browser's PushSubscription.toJSON() gives. */
  subscribe(): FakeSubscription;
  /** The next requests for this subscription get these answers, in order; then 201 again. */
  script(subscription: FakeSubscription | string, ...answers: ScriptedAnswer[]): void;
  /** Only requests signed with this VAPID public key (base64url) pass. */
  expectVapidKey(publicKey: string): void;
  requests(subscription?: FakeSubscription | string): PushRequest[];
  /** Requests that passed every check and were accepted (201): what reached the device. */
  delivered(subscription?: FakeSubscription | string): PushRequest[];
  /** Requests that failed a check (bad signature, undecryptable body, ...). */
  rejected(): PushRequest[];
  /** Forgets every request seen so far (scripts and subscriptions stay). */
  clearLog(): void;
  close(): Promise<void>;
}

const idOf = (subscription: FakeSubscription | string): string => (typeof subscription === 'string' ? subscription : subscription.id);

export async function startFakePushService(): Promise<FakePushService> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-push-'));
  const { keyFile, certFile: caFile, cert } = selfSignedCertificate(dir);

  const subscriptions = new Map<string, Keys>();
  const scripts = new Map<string, ScriptedAnswer[]>();
  const log: PushRequest[] = [];
  let vapidKey: string | undefined;
  let origin = '';

  const server: Server = createServer({ key: readFileSync(keyFile), cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });

  function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const id = /^\/push\/([\w-]+)$/.exec(req.url ?? '')?.[1] ?? '';
    const record: PushRequest = {
      subscription: id,
      status: 201,
      at: Date.now(),
      ttl: req.headers.ttl === undefined ? null : Number(req.headers.ttl),
      urgency: (req.headers.urgency as string | undefined) ?? null,
    };
    log.push(record);
    const answer = (status: number, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, headers).end();
    };
    const keys = subscriptions.get(id);
    if (req.method !== 'POST' || !keys) {
      record.error = 'unknown subscription';
      return answer(404);
    }
    try {
      if (record.ttl === null || !Number.isInteger(record.ttl) || record.ttl < 0) throw new Error('TTL header missing or not a number');
      if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${String(req.headers['content-encoding'])}`);
      record.vapid = checkVapid(req.headers.authorization, origin, vapidKey);
      record.payload = JSON.parse(decryptAes128gcm(body, keys).toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      return answer(record.error.startsWith('vapid') ? 403 : 400);
    }
    const scripted = scripts.get(id)?.shift();
    answer(scripted?.status ?? 201, scripted?.headers);
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = new Agent({ ca: cert });

  const requests = (subscription?: FakeSubscription | string) =>
    subscription === undefined ? [...log] : log.filter((entry) => entry.subscription === idOf(subscription));

  return {
    origin,
    caFile,
    ca: cert,
    agent,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = randomBytes(9).toString('base64url');
      subscriptions.set(id, { ecdh, publicKey, auth });
      return { id, endpoint: `${origin}/push/${id}`, keys: { p256dh: publicKey.toString('base64url'), auth: auth.toString('base64url') } };
    },
    script(subscription, ...answers) {
      scripts.set(idOf(subscription), [...(scripts.get(idOf(subscription)) ?? []), ...answers]);
    },
    expectVapidKey(publicKey) {
      vapidKey = publicKey;
    },
    requests,
    delivered: (subscription) => requests(subscription).filter((entry) => entry.status === 201 && !entry.error),
    rejected: () => log.filter((entry) => entry.error !== undefined && entry.error !== 'unknown subscription'),
    clearLog: () => void log.splice(0),
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `Authorization: vapid t=<JWT>, k=<public key>` (RFC 8292): signature, audience, expiry, subject. */
function checkVapid(header: string | undefined, audience: string, expectedKey: string | undefined): VapidClaims & { k: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+),\s*k=([\w-]+)$/.exec(header ?? '');
  if (!match) throw new Error(`vapid: no vapid Authorization header (${header ?? 'none'})`);
  const [token, k] = [match[1]!, match[2]!];
  if (expectedKey !== undefined && k !== expectedKey) throw new Error('vapid: signed with another key than the server announces');
  const [head, claims, signature] = token.split('.') as [string, string, string];
  const header64 = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string; typ?: string };
  if (header64.alg !== 'ES256' || header64.typ !== 'JWT') throw new Error(`vapid: JWT header ${JSON.stringify(header64)}`);
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('vapid: k is not an uncompressed P-256 point');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  // JWS ES256 signatures are r || s (64 bytes), not DER.
  const valid = verify('sha256', Buffer.from(`${head}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!valid) throw new Error('vapid: bad JWT signature');
  const body = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Partial<VapidClaims>;
  const now = Date.now() / 1000;
  if (body.aud !== audience) throw new Error(`vapid: aud ${String(body.aud)} is not ${audience}`);
  if (typeof body.exp !== 'number' || body.exp <= now || body.exp > now + 24 * 3600) throw new Error(`vapid: exp ${String(body.exp)} not within 24 h`);
  if (typeof body.sub !== 'string' || !/^(mailto:|https:)/.test(body.sub)) throw new Error(`vapid: sub ${String(body.sub)}`);
  return { aud: body.aud, exp: body.exp, sub: body.sub, k };
}

const hmac = (key: Buffer, ...parts: Buffer[]): Buffer => createHmac('sha256', key).update(Buffer.concat(parts)).digest();
const text = (value: string): Buffer => Buffer.from(value, 'latin1');
const ONE = Buffer.from([1]);

/**
 * RFC 8188 `aes128gcm` content coding with the RFC 8291 key schedule. Header: salt (16) | rs (4) |
 * idlen (1) | keyid (the sender's ephemeral public key, 65). Each record of `rs` bytes is AES-128-GCM
 * with a 16-byte tag; its plaintext ends with a delimiter (2 for the last record, 1 before) and zeros.
 */
function decryptAes128gcm(body: Buffer, keys: Keys): Buffer {
  if (body.length < 21) throw new Error('body shorter than the aes128gcm header');
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const senderKey = body.subarray(21, 21 + idlen);
  if (idlen !== 65 || senderKey[0] !== 4) throw new Error('keyid is not an uncompressed P-256 public key');
  if (rs < 18) throw new Error(`record size ${rs} too small`);

  // RFC 8291 section 3.3/3.4: combine the ECDH secret with the subscription's auth secret.
  const ecdhSecret = keys.ecdh.computeSecret(senderKey);
  const prkKey = hmac(keys.auth, ecdhSecret);
  const ikm = hmac(prkKey, text('WebPush: info\0'), keys.publicKey, senderKey, ONE);
  // RFC 8188 section 2.2/2.3: content-encryption key and nonce from the salt.
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, text('Content-Encoding: aes128gcm\0'), ONE).subarray(0, 16);
  const baseNonce = hmac(prk, text('Content-Encoding: nonce\0'), ONE).subarray(0, 12);

  const records = body.subarray(21 + idlen);
  if (records.length === 0) throw new Error('no records');
  const plain: Buffer[] = [];
  for (let offset = 0, seq = 0; offset < records.length; offset += rs, seq += 1) {
    const record = records.subarray(offset, offset + rs);
    const last = offset + rs >= records.length;
    const nonce = Buffer.from(baseNonce);
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ seq) >>> 0, 8);
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end -= 1;
    if (padded[end] !== (last ? 2 : 1)) throw new Error(`record ${seq}: bad padding delimiter`);
    plain.push(padded.subarray(0, end));
  }
  return Buffer.concat(plain);
}
