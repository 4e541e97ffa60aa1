import type { Socket } from 'node:net';
import { BUSY_ABOVE, forget, resumeAtTick, type Resumable } from './streamWindow';

/**
 * The libuv stream under a socket, as net.Socket drives it itself: `readStop` takes the socket out of
 * the event loop's poll set until `readStart`, and `reading` is the flag net.Socket checks before it
 * starts reading again. `socket.pause()` does not stop the system calls (it only stops 'data' events
 * once the socket's buffer is full), so there is no public way to leave bytes in the kernel.
 * `reading` is left true while stopped here: net.Socket asks for more after every read it hands on
 * (its read-ahead), and would start the handle again at once if told it was not reading.
 */
interface ReadHandle {
  reading?: boolean;
  readStop?: () => number;
  readStart?: () => number;
}

/** Streamed answers being read on this process with pacing on; above BUSY_ABOVE each waits for the tick after a read. */
let open = 0;

/** Reads left waiting for a tick so far (process-wide): the tests' way to see whether pacing happened. */
export const pacing = { paused: 0 };

/**
 * One streamed answer's socket, read at most once a window while this process reads more than
 * BUSY_ABOVE of them: after a read the socket leaves the poll set, the kernel keeps what the
 * provider sends meanwhile, and on the next tick one read returns all of it (the tokens of a whole
 * window, handed on in order as one read's would be). With fewer streams open, every read happens as
 * the bytes come. `release` must follow the read's end, however it ends: it reads on at once.
 */
export class PacedRead implements Resumable {
  private paused = false;
  private released = false;

  constructor(private readonly socket: Socket | null) {
    open++;
  }

  /** After a read: waits for the tick when busy. */
  afterRead(): void {
    if (open <= BUSY_ABOVE || this.paused || this.released) return;
    const handle = this.handle();
    if (!handle?.reading || typeof handle.readStop !== 'function' || typeof handle.readStart !== 'function') return;
    if (handle.readStop() !== 0) return;
    this.paused = true;
    pacing.paused++;
    resumeAtTick(this);
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    const handle = this.handle();
    // Not reading any more: net.Socket stopped it itself (its buffer full) and starts it again itself.
    if (!handle?.reading || typeof handle.readStart !== 'function' || this.socket?.destroyed) return;
    if (handle.readStart() !== 0) this.socket?.destroy(new Error('the provider socket could not read again'));
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    open--;
    forget(this);
    this.resume();
  }

  private handle(): ReadHandle | undefined {
    return (this.socket as unknown as { _handle?: ReadHandle | null } | null)?._handle ?? undefined;
  }
}
