/**
 * Whether agents watch the conversations this node is streaming answers in, read for all of them at
 * once: one store read per period for the whole node, where each streaming conversation used to read
 * its own every period (one Redis round trip per stream every 500 ms, 4,000 a second at 2,000 streams).
 * An answer follows its conversation while it streams (`follow`) and asks `open` per delta: the
 * conversation is read as soon as it is followed (the starts of one event-loop turn in one read), then
 * with every other followed conversation once a period, so an agent who opens the conversation
 * mid-answer gets `message.delta` within a period and a read's round trip. Until its first read
 * answers, and after a read failed, a conversation counts as watched: publishing to nobody costs CPU,
 * missing a watcher costs the live view.
 */
export interface WatchFollow {
  /** Whether deltas should be published to agents now; after `stop`, the last answer. */
  readonly open: boolean;
  /** The answer ended: stop reading for it. Idempotent. */
  stop(): void;
}

/** Answers, in order, whether each conversation (public id) has a watcher on any node. */
export type WatchedAmong = (conversationIds: string[]) => Promise<boolean[]>;

/** A conversation some answer on this node streams in, and what the last read found. */
interface Followed {
  followers: number;
  watched: boolean;
}

/** How often every followed conversation is read again: the bound on noticing a new watcher (docs/performance.md). */
export const WATCH_PERIOD_MS = 500;

export class WatchPoll {
  private readonly followed = new Map<string, Followed>();
  /** Followed since the last read began, read at the end of this event-loop turn. */
  private fresh: string[] = [];
  private freshScheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private periodReading = false;

  constructor(
    private readonly read: WatchedAmong,
    private readonly periodMs = WATCH_PERIOD_MS,
  ) {}

  follow(conversationId: string): WatchFollow {
    let entry = this.followed.get(conversationId);
    if (!entry) {
      entry = { followers: 0, watched: true };
      this.followed.set(conversationId, entry);
      this.readSoon(conversationId);
    }
    entry.followers++;
    // Runs only while something streams; never keeps the process alive by itself.
    this.timer ??= setInterval(() => this.readAll(), this.periodMs).unref();
    const followed = entry;
    let stopped = false;
    return {
      get open() {
        return followed.watched;
      },
      stop: () => {
        if (stopped) return;
        stopped = true;
        this.unfollow(conversationId, followed);
      },
    };
  }

  /** Stops the period's reads (the node is closing). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.followed.clear();
  }

  private unfollow(conversationId: string, entry: Followed): void {
    if (--entry.followers > 0 || this.followed.get(conversationId) !== entry) return;
    this.followed.delete(conversationId);
    if (this.followed.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private readSoon(conversationId: string): void {
    this.fresh.push(conversationId);
    if (this.freshScheduled) return;
    this.freshScheduled = true;
    setImmediate(() => {
      this.freshScheduled = false;
      const ids = this.fresh;
      this.fresh = [];
      void this.readInto(ids);
    });
  }

  private readAll(): void {
    // A read still out (a slow store) is not doubled; the next period reads again.
    if (this.periodReading || this.followed.size === 0) return;
    this.periodReading = true;
    void this.readInto([...this.followed.keys()]).finally(() => (this.periodReading = false));
  }

  private async readInto(ids: string[]): Promise<void> {
    let answers: boolean[] | undefined;
    try {
      answers = await this.read(ids);
    } catch {
      answers = undefined;
    }
    for (let i = 0; i < ids.length; i++) {
      const entry = this.followed.get(ids[i]!);
      if (entry) entry.watched = answers?.[i] ?? true;
    }
  }
}
