import { AppError } from '../../errors';

export interface StreamChunk<C> {
  seq: number;
  chunk: C;
}

/** The answer to a streaming ask: ordered chunks, then the turn's reply (or its error). */
export interface ActorStream<C, R> extends AsyncIterable<StreamChunk<C>> {
  /** Settles after the last chunk: the turn's reply, or why the stream ended early. */
  readonly reply: Promise<R>;
  /**
   * The chunks not yet taken, then each one as it arrives, handed over in the call that pushes it
   * (no promise per chunk: a streamed token is relayed inside the provider's read). Settles when the
   * stream ends, rejecting as the iterator would throw. Not to be mixed with iterating after it.
   */
  forEach(onChunk: (chunk: StreamChunk<C>) => void): Promise<void>;
}

/**
 * Buffers chunks between the turn (local or relayed from the owner's node) and the consumer. Chunks
 * must arrive with seq 1, 2, 3...; a gap ends the stream with an error rather than a silent misorder.
 */
export class ChunkQueue<C, R> implements ActorStream<C, R> {
  readonly reply: Promise<R>;
  private readonly chunks: StreamChunk<C>[] = [];
  private expected = 1;
  private ended = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  private listener: ((chunk: StreamChunk<C>) => void) | undefined;
  private settle!: { resolve(value: R): void; reject(error: unknown): void };

  constructor() {
    this.reply = new Promise<R>((resolve, reject) => (this.settle = { resolve, reject }));
    this.reply.catch(() => undefined); // a consumer that only iterates sees the error there
  }

  push(seq: number, chunk: C): void {
    if (this.ended) return;
    if (seq !== this.expected) return this.fail(new AppError(502, 'stream_gap', `Stream chunk ${this.expected} went missing.`));
    this.expected++;
    if (!this.listener) {
      this.chunks.push({ seq, chunk });
      this.notify();
      return;
    }
    try {
      this.listener({ seq, chunk });
    } catch (error) {
      this.fail(error);
    }
  }

  forEach(onChunk: (chunk: StreamChunk<C>) => void): Promise<void> {
    for (let next = this.chunks.shift(); next; next = this.chunks.shift()) onChunk(next);
    this.listener = onChunk;
    // `reply` settles exactly when the stream ends (end or fail); only chunks before that are handed over.
    return this.reply.then(() => undefined);
  }

  end(value: R): void {
    if (this.ended) return;
    this.ended = true;
    this.settle.resolve(value);
    this.notify();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.settle.reject(error);
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamChunk<C>> {
    for (;;) {
      const next = this.chunks.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
