import http from 'node:http';
import https from 'node:https';
import { AddressRefused, checkLiteralHost, guardedLookup, outboundPolicy, type AddressPolicy } from '../../net/outboundAddress';
import { DELIVERY_TIMEOUT_MS, RESPONSE_BODY_LIMIT } from './schedule';

/** What one POST to a webhook came to; `delivered` only for a 2xx within the time limit. */
export interface SendResult {
  delivered: boolean;
  status: number | null;
  /** At most RESPONSE_BODY_LIMIT bytes of the answer, as text. */
  body: string | null;
  /** Why it failed, in words for the delivery log. */
  error: string | null;
}

/** How deliveries reach receivers in this process: the address policy (WEBHOOK_ALLOW_PRIVATE) and the time limit. */
export interface WebhookRuntime {
  policy: AddressPolicy;
  timeoutMs: number;
}

export const webhookRuntime = (allowPrivate: boolean, options: Partial<WebhookRuntime> = {}): WebhookRuntime => ({
  policy: options.policy ?? outboundPolicy(allowPrivate),
  timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
});

/**
 * POSTs one event body. The host is resolved and vetted by the crawler's address rules on every
 * attempt (a name that now points inside our network is refused), redirects are never followed (a
 * 3xx is a failed attempt that names where it pointed), the whole exchange must finish within the
 * time limit, and only the first kilobyte of the answer is read.
 */
export function sendEvent(url: string, body: string, headers: Record<string, string>, runtime: WebhookRuntime): Promise<SendResult> {
  const target = new URL(url);
  try {
    checkLiteralHost(target.hostname, runtime.policy);
  } catch (error) {
    return Promise.resolve(failure(error));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    // The status line alone decides: a 2xx that came in time is delivered even if its body drags on.
    let answered: number | null = null;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const req = client.request(target, {
      method: 'POST',
      agent: false,
      lookup: guardedLookup(runtime.policy),
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'Parley-Webhooks/1', ...headers },
    });
    const deadline = setTimeout(() => {
      const ok = answered !== null && answered >= 200 && answered < 300;
      finish({ delivered: ok, status: answered, body: null, error: ok ? null : `timed out after ${runtime.timeoutMs} ms` });
      req.destroy();
    }, runtime.timeoutMs);
    req.on('error', (error) => finish(failure(error)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      answered = status;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = wholeCharacters(Buffer.concat(chunks, size)).toString('utf8');
        const ok = status >= 200 && status < 300;
        const redirect = status >= 300 && status < 400 ? `redirect to ${String(res.headers.location ?? '(no location)')} not followed` : null;
        finish({ delivered: ok, status, body: text, error: ok ? null : (redirect ?? `answered ${status}`) });
        req.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_BODY_LIMIT) return;
        const kept = chunk.subarray(0, RESPONSE_BODY_LIMIT - size);
        chunks.push(kept);
        size += kept.length;
        // Enough is read: the rest of the answer is not ours to wait for.
        if (size >= RESPONSE_BODY_LIMIT) done();
      });
      res.on('end', done);
      res.on('error', (error) => finish({ ...failure(error), status }));
    });
    req.end(body);
  });
}

function failure(error: unknown): SendResult {
  if (error instanceof AddressRefused) return { delivered: false, status: null, body: null, error: error.message };
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return { delivered: false, status: null, body: null, error: code ? `${code}: ${message}` : message };
}

/** The bytes up to the last whole UTF-8 character, so a cut answer is stored without a broken one at its end. */
function wholeCharacters(bytes: Buffer): Buffer {
  let start = bytes.length - 1;
  // Back up over continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (start > 0 && start > bytes.length - 4 && (bytes[start]! & 0xc0) === 0x80) start -= 1;
  const lead = bytes[start];
  if (lead === undefined || lead < 0x80) return bytes;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - start < length ? bytes.subarray(0, start) : bytes;
}
