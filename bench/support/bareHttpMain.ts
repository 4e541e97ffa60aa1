import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The baseline of the pinned method: a bare `node:http` server, pinned to the node's core and driven
 * by the same client in the same run. GET answers `{"status":"ok"}` (what /healthz says); POST reads
 * its JSON body, parses it and answers a small JSON object (the least a heartbeat could do).
 */
const server = createServer((req, res) => {
  const answer = (body: string) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
  if (req.method !== 'POST') return answer('{"status":"ok"}');
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { visitor_id?: string };
    answer(JSON.stringify({ poll_seconds: 15, conversation_id: null, messages: [], visitor: parsed.visitor_id ?? null }));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ level: 30, msg: 'listening', port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => process.exit(0));
