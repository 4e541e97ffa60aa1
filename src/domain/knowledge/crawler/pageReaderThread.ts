import { parentPort } from 'node:worker_threads';
import { extractPage } from './extract';
import type { ReadReply, ReadRequest } from './pageReader';

// The worker side of PageReader: cheerio is loaded here, then one page is read per message.
const port = parentPort;
if (!port) throw new Error('pageReaderThread runs only as a worker thread');
port.on('message', ({ body, pageUrl, mediaType }: ReadRequest) => {
  let reply: ReadReply;
  try {
    reply = { ok: true, page: extractPage(body, pageUrl, mediaType) };
  } catch {
    reply = { ok: false };
  }
  port.postMessage(reply);
});
port.postMessage('ready');
