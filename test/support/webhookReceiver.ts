import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/domain/webhooks/signature';

/** One POST the receiver got, whatever it answered. */
export interface Received {
  id: string;
  type: string;
  conversationId: string | null;
  seq: number;
  /** The signature matched the secret of the path it came to, within the default tolerance. */
  verified: boolean;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  raw: string;
  /** Epoch ms when it arrived. */
  at: number;
  /** The status it was answered with (0: left hanging). */
  answered: number;
}

/** How the receiver answers the next POSTs: a status (with a body and headers if given), or never (the sender's time limit runs out). */
export type Answer = number | 'hang' | { status: number; body?: string; headers?: Record<string, string> };

/**
 * An integrator's endpoint, as documented in docs/webhooks.md: it verifies every signature with the
 * secret of the webhook posting to it (one path per webhook: `/hooks/<name>`), records what came, and
 * answers as told (`answer`), so tests and the chaos run can make it fail or time out for a while.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly secrets = new Map<string, string>();
  private answerWith: (request: Received) => Answer = () => 200;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: ReturnType<typeof createServer>, readonly baseUrl: string) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => void receiver!.handle(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}`);
    return receiver;
  }

  /** The URL for a webhook; its secret is told once it is known (`trust`). */
  url(name: string): string {
    return `${this.baseUrl}/hooks/${name}`;
  }

  trust(name: string, secret: string): void {
    this.secrets.set(name, secret);
  }

  /** Answers from now on with `answer` (a function of the request, or one answer for all). */
  answer(answer: Answer | ((request: Received) => Answer)): void {
    this.answerWith = typeof answer === 'function' ? answer : () => answer;
  }

  /** What came to one webhook's path. */
  to(name: string): Received[] {
    return this.received.filter((r) => r.headers['x-hook'] === name);
  }

  /** Ids of the events accepted (answered 2xx), once each: what a receiver that deduplicates by id keeps. */
  acceptedIds(name?: string): Set<string> {
    return new Set((name ? this.to(name) : this.received).filter((r) => r.answered >= 200 && r.answered < 300).map((r) => r.id));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const name = decodeURIComponent((req.url ?? '').replace(/^\/hooks\//, '').split('?')[0]!);
    let body: any = null;
    try {
      body = JSON.parse(raw);
    } catch {
      // recorded as it came; `verified` says whether it was ours
    }
    const secret = this.secrets.get(name);
    const header = req.headers['parley-signature'];
    const record: Received = {
      id: body?.id ?? '',
      type: body?.type ?? '',
      conversationId: body?.conversation_id ?? null,
      seq: Number(body?.seq ?? -1),
      verified: secret !== undefined && verifySignature(secret, typeof header === 'string' ? header : undefined, raw),
      headers: { ...req.headers, 'x-hook': name },
      body,
      raw,
      at: Date.now(),
      answered: 0,
    };
    this.received.push(record);
    const answer = this.answerWith(record);
    if (answer === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    const { status, body: text, headers } = typeof answer === 'number' ? { status: answer, body: undefined, headers: {} } : answer;
    record.answered = status;
    res.writeHead(status, { 'Content-Type': 'text/plain', ...headers }).end(text ?? (status >= 300 ? 'receiver says no' : 'ok'));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
