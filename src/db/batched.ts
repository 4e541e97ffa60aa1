/** One statement answering many callers: it gets their inputs in call order and answers each, in the same order. */
export type BatchRun<In, Out> = (inputs: readonly In[]) => Promise<Out[]>;

interface Waiting<In, Out> {
  input: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

export interface BatchedOptions {
  /** Statements in flight at once; calls made meanwhile wait and go together in the next one. */
  inFlight?: number;
  /** The most inputs in one statement (bind arrays stay small, one slow batch stays short). */
  maxBatch?: number;
}

/**
 * Group commit for small statements that many requests make at once (a new visitor's row, the
 * reads of its first heartbeat). A call made while the connection pool is idle goes out at the end
 * of the current event-loop turn (`setImmediate`: every request read in that turn joins it, and no
 * timer adds latency); calls made while `inFlight` statements run wait and go together in the next
 * one. So under load one statement answers tens of callers, and at rest each call is one statement
 * as before. If a batch fails, each of its inputs is retried alone, so one bad input (a workspace
 * deleted meanwhile) fails only its own caller.
 */
export class Batched<In, Out> {
  private waiting: Array<Waiting<In, Out>> = [];
  private running = 0;
  private scheduled = false;
  private readonly inFlight: number;
  private readonly maxBatch: number;

  constructor(
    private readonly run: BatchRun<In, Out>,
    options: BatchedOptions = {},
  ) {
    this.inFlight = options.inFlight ?? 2;
    this.maxBatch = options.maxBatch ?? 500;
  }

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.inFlight || !this.waiting.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    while (this.running < this.inFlight && this.waiting.length) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.running++;
      void this.answer(batch).finally(() => {
        this.running--;
        this.schedule();
      });
    }
  }

  private async answer(batch: Array<Waiting<In, Out>>): Promise<void> {
    let outputs: Out[];
    try {
      outputs = await this.run(batch.map((each) => each.input));
      if (outputs.length !== batch.length) throw new Error(`a batch of ${batch.length} was answered with ${outputs.length} results`);
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // Which input failed it is unknown: each goes alone, and fails (or not) on its own.
      await Promise.all(batch.map((each) => this.answer([each])));
      return;
    }
    batch.forEach((each, i) => each.resolve(outputs[i]!));
  }
}

/** One `Batched` per key object (a Sequelize instance: each database has its own), made on first use. */
export function batchedPer<Key extends object, In, Out>(make: (key: Key) => Batched<In, Out>): (key: Key) => Batched<In, Out> {
  const made = new WeakMap<Key, Batched<In, Out>>();
  return (key) => {
    let batched = made.get(key);
    if (!batched) made.set(key, (batched = make(key)));
    return batched;
  };
}
