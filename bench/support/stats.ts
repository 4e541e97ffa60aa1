/** Summary statistics over a sample of durations (or any numbers). */
export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile: with few samples (20 failovers) p99 is the worst one, never an interpolation. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / (sorted.length || 1);
  return { n: sorted.length, mean, p50: percentile(sorted, 50), p99: percentile(sorted, 99), min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN };
}

export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** The median as the mean of the middle two for an even count (the instruction counters' windows). */
export function middleMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Rounds for the results file: enough digits to compare runs, few enough to keep diffs readable. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
