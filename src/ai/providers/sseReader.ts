/**
 * Receives one server-sent event: its data (data lines joined by LF) and its `event:` name, if any.
 * 'stop' ends the read: the events after it, in the same chunk or later, are not handed over.
 */
export type SseEventHandler = (data: string, event: string | undefined) => 'stop' | void;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/** True when `buffer[at..at+name.length)` holds the field name's ASCII bytes. */
function fieldIs(buffer: Buffer, at: number, length: number, name: string): boolean {
  if (length !== name.length) return false;
  for (let i = 0; i < length; i++) if (buffer[at + i] !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * A text/event-stream parser that works on the raw bytes of the answer, as they are read: lines are
 * found by byte (LF, CR or CRLF, also when a CRLF is split between two reads), and only the value of
 * a `data:` or `event:` line is decoded, once the whole line is in. A line's end is an ASCII byte
 * that never occurs inside a multi-byte UTF-8 character, so a character split between two reads is
 * decoded whole with the rest of its line. Reading the provider this way needs no string decoder per
 * read, no string per line and no object per event (the relay's hot path: one event per token).
 *
 * Follows the event-stream rules the providers rely on: a blank line dispatches the event if it has
 * data, `:` starts a comment, one space after the colon is dropped, a line without a colon is a field
 * with an empty value, a UTF-8 byte order mark at the very start is skipped, `id:` and `retry:` (and
 * unknown fields) are ignored. An event not closed by a blank line when the answer ends is dropped.
 */
export class SseReader {
  /** The start of a line whose end has not arrived yet. */
  private carry: Buffer | undefined;
  private data = '';
  private dataLines = 0;
  private event: string | undefined;
  /** The previous read ended on a CR: a LF at the start of this one belongs to it. */
  private afterCr = false;
  private atStart = true;

  constructor(private readonly onEvent: SseEventHandler) {}

  /** Parses one read of the answer; returns 'stop' when a handler said so (nothing after it is handled). */
  feed(chunk: Buffer): 'stop' | void {
    let buffer = chunk;
    if (this.carry) {
      buffer = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    let position = 0;
    if (this.atStart) {
      // The byte order mark may itself arrive in pieces: wait for three bytes before deciding.
      if (buffer.length < 3 && buffer[0] === 0xef && (buffer.length < 2 || buffer[1] === 0xbb)) {
        this.carry = buffer;
        return;
      }
      this.atStart = false;
      if (buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) position = 3;
    }
    if (this.afterCr && position < buffer.length) {
      this.afterCr = false;
      if (buffer[position] === LF) position++;
    }
    const end = buffer.length;
    if (buffer.indexOf(CR, position) === -1) {
      // The usual case: LF line ends only.
      for (let lineEnd = buffer.indexOf(LF, position); lineEnd !== -1; lineEnd = buffer.indexOf(LF, position)) {
        if (this.line(buffer, position, lineEnd) === 'stop') return 'stop';
        position = lineEnd + 1;
      }
    } else {
      while (position < end) {
        const cr = buffer.indexOf(CR, position);
        const lf = buffer.indexOf(LF, position);
        const lineEnd = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
        if (lineEnd === -1) break;
        const said = this.line(buffer, position, lineEnd);
        position = lineEnd + 1;
        if (lineEnd === cr) {
          if (position === end) this.afterCr = true;
          else if (buffer[position] === LF) position++;
        }
        if (said === 'stop') return 'stop';
      }
    }
    if (position < end) this.carry = buffer.subarray(position);
  }

  private line(buffer: Buffer, start: number, end: number): 'stop' | void {
    if (start === end) return this.dispatch();
    let colon = buffer.indexOf(COLON, start);
    if (colon === -1 || colon > end) colon = end;
    // A comment (keep-alives such as `: ping`).
    if (colon === start) return;
    let valueStart = colon + 1;
    if (valueStart < end && buffer[valueStart] === SPACE) valueStart++;
    const length = colon - start;
    if (fieldIs(buffer, start, length, 'data')) {
      const value = valueStart < end ? buffer.toString('utf8', valueStart, end) : '';
      this.data = this.dataLines === 0 ? value : `${this.data}\n${value}`;
      this.dataLines++;
    } else if (fieldIs(buffer, start, length, 'event')) {
      this.event = valueStart < end ? buffer.toString('utf8', valueStart, end) : undefined;
    }
  }

  private dispatch(): 'stop' | void {
    if (this.dataLines === 0) {
      this.event = undefined;
      return;
    }
    const { data, event } = this;
    this.data = '';
    this.dataLines = 0;
    this.event = undefined;
    return this.onEvent(data, event);
  }
}
