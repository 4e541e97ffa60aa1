import { performance } from 'node:perf_hooks';

/** What the fan-out bench and its socket-holding children say to each other over the IPC channel. */

/** One agent's socket: which node it connects to and the company channel it subscribes to. */
export interface SocketSpec {
  token: string;
  /** Index into `ToChild.setup.nodes`. */
  node: number;
  workspace: number;
  channel: string;
}

export type ToChild =
  | { type: 'setup'; nodes: string[]; sockets: SocketSpec[]; concurrency: number }
  | { type: 'clock'; sentAt: number }
  | { type: 'collect' }
  | { type: 'close' };

/** Receipts of one measured message: when (child epoch ms) and on which node's socket. */
export interface Receipts {
  key: number;
  at: number[];
  node: number[];
}

export type FromChild =
  | { type: 'ready'; subscribed: number[]; failed: number; firstError?: string; seconds: number; openFiles: number; fileLimit: string }
  | { type: 'clock'; sentAt: number; childAt: number }
  | { type: 'samples'; receipts: Receipts[]; disconnects: number; otherEvents: number; cpuSeconds: number; heapMb: number }
  | { type: 'fatal'; message: string };

/** Every measured visitor message reads `fanout <key>`: the key ties each socket's receipt to its send. */
export const MEASURED = /^fanout (\d+)$/;
export const measuredText = (key: number): string => `fanout ${key}`;

/** Epoch milliseconds with sub-millisecond precision; processes on one machine agree once their offsets are measured. */
export const epochMs = (): number => performance.timeOrigin + performance.now();
