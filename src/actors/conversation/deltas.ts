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
