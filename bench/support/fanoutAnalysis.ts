import type { Receipts } from './fanoutProtocol';
import { percentile, round } from './stats';

/** One measured visitor message, as the driver saw it. */
export interface Sent {
  key: number;
  round: number;
  workspace: number;
  /** Driver epoch ms just before the request was written. */
  sentAt: number;
  /** To the SSE `meta` event: the message committed on the owner node and relayed back. */
  metaMs?: number;
  status: number;
  owner: number;
  entry: number;
}

export interface Spread {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: round(percentile(sorted, 50), 2), p95: round(percentile(sorted, 95), 2), p99: round(percentile(sorted, 99), 2), max: round(sorted.at(-1) ?? Number.NaN, 2) };
}

export interface Analysis {
  delivery: Spread;
  /** Per round, in order: every delivery of that round's messages. */
  rounds: Spread[];
  firstSocket: Spread;
  /** Last minus first receipt of each message: what fanning one event out to every socket took. */
  fanSpread: Spread;
  meta: Spread;
  byPlace: Record<'owner' | 'entry' | 'other', Spread>;
  received: number;
  expected: number;
  incomplete: number;
  failedSends: number;
}

/**
 * Every receipt against its send, on the driver's clock (`offsets[c]`: child c's clock minus ours).
 * `subscribed[w]` sockets of workspace w must each have received every message sent there.
 */
export function analyse(sent: readonly Sent[], collected: ReadonlyArray<{ receipts: Receipts[] }>, offsets: readonly number[], subscribed: readonly number[], rounds: number): Analysis {
  const bySent = new Map(sent.map((s) => [s.key, s]));
  const all: number[] = [];
  const perRound: number[][] = Array.from({ length: rounds }, () => []);
  const byPlace: Record<'owner' | 'entry' | 'other', number[]> = { owner: [], entry: [], other: [] };
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const received = new Map<number, number>();
  collected.forEach((samples, c) => {
    for (const receipt of samples.receipts) {
      const message = bySent.get(receipt.key);
      if (!message) continue; // a warm-up message
      received.set(receipt.key, (received.get(receipt.key) ?? 0) + receipt.at.length);
      receipt.at.forEach((at, i) => {
        const ms = at - offsets[c]! - message.sentAt;
        all.push(ms);
        perRound[message.round]!.push(ms);
        const node = receipt.node[i]!;
        byPlace[node === message.owner ? 'owner' : node === message.entry ? 'entry' : 'other'].push(ms);
        first.set(receipt.key, Math.min(first.get(receipt.key) ?? Number.POSITIVE_INFINITY, ms));
        last.set(receipt.key, Math.max(last.get(receipt.key) ?? Number.NEGATIVE_INFINITY, ms));
      });
    }
  });
  return {
    delivery: spreadOf(all),
    rounds: perRound.map(spreadOf),
    firstSocket: spreadOf([...first.values()]),
    fanSpread: spreadOf([...first.keys()].map((key) => last.get(key)! - first.get(key)!)),
    meta: spreadOf(sent.flatMap((s) => (s.metaMs === undefined ? [] : [s.metaMs]))),
    byPlace: { owner: spreadOf(byPlace.owner), entry: spreadOf(byPlace.entry), other: spreadOf(byPlace.other) },
    received: [...received.values()].reduce((a, b) => a + b, 0),
    expected: sent.reduce((sum, s) => sum + subscribed[s.workspace]!, 0),
    incomplete: sent.filter((s) => (received.get(s.key) ?? 0) < subscribed[s.workspace]!).length,
    failedSends: sent.filter((s) => s.status !== 200 || s.metaMs === undefined).length,
  };
}
