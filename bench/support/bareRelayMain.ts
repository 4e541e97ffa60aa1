import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The floor of relaying a token on this machine (issue 23, `tokenCost`): a bare `node:http` relay,
 * pinned to the node's core and measured the same way in the same run. Each POST is forwarded as is
 * to the provider stand-in (PROVIDER_URL, a keep-alive connection) and every read of its answer is
 * written to the client at once, untouched: one read and one chunked write per token, with no SSE
 * parsing, no JSON and no coalescing. What a relay cannot do without.
 */
const provider = new URL(process.env.PROVIDER_URL ?? 'http://127.0.0.1:1');
const agent = new Agent({ keepAlive: true });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const upstream = request(
      { host: provider.hostname, port: provider.port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        answer.on('data', (chunk: Buffer) => res.write(chunk));
        answer.on('end', () => res.end());
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ level: 30, msg: 'listening', port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => process.exit(0));
