/**
 * Coalesces an AI reply's deltas for agents watching the conversation live: the first goes out at
 * once, later ones at most every `intervalMs`, so thousands of streams do not mean one fan-out
 * message per token. (The visitor's own stream is not batched.)
 */
export class DeltaBatcher {
  private buffer = '';
  private timer: NodeJS.Timeout | undefined;
  private lastSent = 0;

  constructor(
    private readonly send: (text: string) => void,
    private readonly intervalMs = 50,
  ) {}

  push(text: string): void {
    this.buffer += text;
    if (this.timer) return;
    const wait = this.lastSent + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.buffer) return;
    const text = this.buffer;
    this.buffer = '';
    this.lastSent = Date.now();
    this.send(text);
  }
}

/**
 * Whether any agent has the conversation open (its watchers, src/realtime/watchers.ts), read when
 * an answer starts and again at most every `ttlMs` while it streams, so an agent who opens the
 * conversation mid-answer gets the rest of it. Without a reader, or until the first read answers, or
 * when a read fails, the deltas go out: publishing to nobody costs CPU, missing a watcher costs the live view.
 */
export class WatchGate {
  private known = true;
  private readAt = 0;
  private reading = false;

  constructor(
    private readonly read: (() => Promise<boolean>) | undefined,
    private readonly ttlMs = 500,
  ) {
    this.refresh();
  }

  get open(): boolean {
    if (Date.now() - this.readAt >= this.ttlMs) this.refresh();
    return this.known;
  }

  private refresh(): void {
    if (!this.read || this.reading) return;
    this.reading = true;
    this.readAt = Date.now();
    this.read().then(
      (watched) => {
        this.known = watched;
        this.reading = false;
      },
      () => {
        this.known = true;
        this.reading = false;
      },
    );
  }
}
