import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ExtractedPage } from './extract';

export interface ReadRequest { body: string; pageUrl: string; mediaType: string }
export type ReadReply = { ok: true; page: ExtractedPage } | { ok: false };

/** Reading a page failed; `reason` is shown to users, like a FetchFailure's. */
export class ReadFailure extends Error {
  override name = 'ReadFailure';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** How long one page may take to read by default. Real pages take well under a second. */
export const READ_BUDGET_MS = 10_000;

// Parsing a 2 MB page takes a few hundred MB at worst; a page that needs more is not worth reading.
const WORKER_HEAP_MB = 512;

/**
 * Reads pages (`extractPage`) on a worker thread, one at a time, so a hostile page cannot stall the
 * process's event loop (in single-node mode that is the web server's). A page that takes longer than
 * `budgetMs` fails and its worker is terminated; the next page gets a fresh one. Owned by one crawl,
 * which closes it when done.
 */
export class PageReader {
  private worker?: Promise<Worker>;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly budgetMs = READ_BUDGET_MS) {}

  read(body: string, pageUrl: string, mediaType: string): Promise<ExtractedPage> {
    const result = this.tail.then(() => this.readNow({ body, pageUrl, mediaType }));
    this.tail = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.then((w) => w.terminate(), () => undefined);
  }

  private async readNow(request: ReadRequest): Promise<ExtractedPage> {
    if (!this.worker) {
      const started = startWorker(() => {
        // A worker that dies between pages is replaced at the next read.
        if (this.worker === started) this.worker = undefined;
      });
      this.worker = started;
    }
    const worker = await this.worker.catch((error: unknown) => {
      this.worker = undefined;
      throw error;
    });
    const reply = await new Promise<ReadReply | ReadFailure>((resolve) => {
      const settle = (outcome: ReadReply | ReadFailure) => {
        clearTimeout(timer);
        worker.off('message', settle).off('error', onError).off('exit', onExit);
        resolve(outcome);
      };
      const onError = () => settle(new ReadFailure('the page could not be read'));
      const onExit = () => settle(new ReadFailure('the page could not be read'));
      const timer = setTimeout(() => settle(new ReadFailure('the page took too long to read')), this.budgetMs);
      worker.on('message', settle).on('error', onError).on('exit', onExit);
      worker.postMessage(request);
    });
    if (reply instanceof ReadFailure) {
      // A worker that overran, crashed or ran out of memory is not trusted with the next page.
      await this.close();
      throw reply;
    }
    // An exception (a parser bug a page tripped over) loses that page only; the message is for no visitor's eyes.
    if (!reply.ok) throw new ReadFailure('the page could not be read');
    return reply.page;
  }
}

/** Resolves once the worker has loaded its modules, so start-up does not count against a page's budget. */
function startWorker(onExit: () => void): Promise<Worker> {
  // Compiled layout: this file and the thread's sit side by side in dist/src/domain/knowledge/crawler.
  const worker = new Worker(join(__dirname, 'pageReaderThread.js'), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  return new Promise((resolve, reject) => {
    worker.once('message', () => {
      worker.off('error', reject);
      // An idle worker that dies must not throw in this thread.
      worker.on('error', () => undefined);
      worker.once('exit', onExit);
      resolve(worker);
    });
    worker.once('error', reject);
  });
}
