/**
 * The inbox's paging cursor (`next_cursor`, then `before`): the position of the last row listed, in
 * the list's own order (last activity, then the row id), so a page starts right after it however
 * many conversations arrived in between. Opaque to clients: 16 bytes, base64url.
 *
 * Every string of the pattern names a position (values past the bounds are read as the bounds), so
 * the pattern is the whole check and a malformed cursor is refused by the query schema alone.
 */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export interface InboxPosition {
  /** `last_message_at` in microseconds since the epoch, as Postgres keeps it (a Date would drop them). */
  atMicros: number;
  /** The conversation's row id: the tie-break between equal `last_message_at`. */
  id: number;
}

const bounded = (value: bigint) => Number(value < 0n ? 0n : value > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : value);

export function encodeCursor(position: InboxPosition): string {
  const bytes = Buffer.alloc(16);
  bytes.writeBigInt64BE(BigInt(position.atMicros), 0);
  bytes.writeBigInt64BE(BigInt(position.id), 8);
  return bytes.toString('base64url');
}

/** Reads a cursor that matched `CURSOR_PATTERN`. */
export function decodeCursor(cursor: string): InboxPosition {
  const bytes = Buffer.from(cursor, 'base64url');
  return { atMicros: bounded(bytes.readBigInt64BE(0)), id: bounded(bytes.readBigInt64BE(8)) };
}
