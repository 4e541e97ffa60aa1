import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express from 'express';
import { SseStream } from '../../src/http/sse';

const counter = { inc: () => undefined, dec: () => undefined };

/** A server whose every request is answered by an SseStream: meta, three deltas (one multi-byte), done. */
async function sseServer(): Promise<{ server: Server; port: number }> {
  const app = express();
  app.all('/stream', (_req, res) => {
    const sse = new SseStream(res, counter);
    sse.send('meta', { id: 1 });
    sse.send('delta', { delta: 'a' });
    setTimeout(() => {
      sse.send('delta', { delta: 'é€😀' });
      sse.send('delta', { delta: 'c' });
      sse.send('done', { message_id: 9 });
      sse.end();
    }, 10);
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends raw request text on one connection and collects every byte until `done` says it has enough. */
async function raw(port: number, requests: string[], done: (text: string) => boolean): Promise<Buffer> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'connect');
  for (const request of requests) socket.write(request);
  const deadline = Date.now() + 5_000;
  while (!done(Buffer.concat(chunks).toString('utf8')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
  return Buffer.concat(chunks);
}

/** Decodes a chunked body strictly (sizes in bytes, CRLF after each chunk); returns the body and what follows the last chunk. */
function dechunk(bytes: Buffer): { body: string; rest: string } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    assert.ok(lineEnd > at, 'a chunk size line');
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    assert.ok(Number.isInteger(size), 'the size line is hexadecimal');
    at = lineEnd + 2;
    if (size === 0) {
      assert.equal(bytes.subarray(at, at + 2).toString('latin1'), '\r\n', 'the last chunk ends the body');
      return { body: Buffer.concat(parts).toString('utf8'), rest: bytes.subarray(at + 2).toString('utf8') };
    }
    parts.push(bytes.subarray(at, at + size));
    at += size;
    assert.equal(bytes.subarray(at, at + 2).toString('latin1'), '\r\n', 'CRLF after the chunk data');
    at += 2;
  }
}

const expectedBody = [
  'id: 1\nevent: meta\ndata: {"id":1}\n\n',
  'id: 2\nevent: delta\ndata: {"delta":"a"}\n\n',
  'id: 3\nevent: delta\ndata: {"delta":"é€😀"}\n\n',
  'id: 4\nevent: delta\ndata: {"delta":"c"}\n\n',
  'id: 5\nevent: done\ndata: {"message_id":9}\n\n',
].join('');

describe('SseStream: events framed on the socket', () => {
  let server: Server;
  let port: number;
  before(async () => ({ server, port } = await sseServer()));
  after(() => server.close());

  it('writes valid chunked encoding (byte sizes, multi-byte text), ends the body, and the connection serves the next request', async () => {
    const request = 'POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n';
    const bytes = await raw(port, [request, request], (text) => text.split('0\r\n\r\n').length >= 3);
    const headerEnd = bytes.indexOf('\r\n\r\n');
    const head = bytes.subarray(0, headerEnd).toString('latin1');
    assert.match(head, /^HTTP\/1\.1 200/);
    assert.match(head, /transfer-encoding: chunked/i);
    const first = dechunk(bytes.subarray(headerEnd + 4));
    assert.equal(first.body, expectedBody);
    // The keep-alive connection answered the second request too: the first body was ended properly.
    const second = Buffer.from(first.rest, 'utf8');
    const secondHeaderEnd = second.indexOf('\r\n\r\n');
    assert.match(second.subarray(0, secondHeaderEnd).toString('latin1'), /^HTTP\/1\.1 200/);
    assert.equal(dechunk(second.subarray(secondHeaderEnd + 4)).body, expectedBody);
  });

  it('an HTTP/1.0 client (no chunked encoding) gets the same events as plain text', async () => {
    const bytes = await raw(port, ['GET /stream HTTP/1.0\r\nHost: x\r\n\r\n'], (text) => text.includes('event: done'));
    const text = bytes.toString('utf8');
    const headerEnd = text.indexOf('\r\n\r\n');
    assert.doesNotMatch(text.slice(0, headerEnd), /transfer-encoding/i);
    assert.equal(text.slice(headerEnd + 4), expectedBody);
  });
});
