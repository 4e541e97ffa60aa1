import { performance } from 'node:perf_hooks';
import { cpuSeconds } from './cpu';
import type { Answer } from './inboxHttp';
import { median } from './stats';

/** Something whose CPU per response is measured: the server process that answers, and one request to it. */
export interface Costed {
  pid: number;
  fire(n: number): Promise<Answer>;
}

export interface Cost {
  /** Median over the rounds of the server's CPU (utime + stime) per response. */
  cpuUs: number;
  /** The same for each of `meters` (CPU seconds so far of something else that works for the response: the database's backends). */
  alsoUs: Record<string, number>;
  /** Median responses per second (the server's core is shared with the machine's other users). */
  perS: number;
  responses: number;
  failed: number;
}

/**
 * The pinned method's per-unit cost (bench/support/pinning.ts): each target in turn answers a closed
 * loop of `concurrency` for `ms`, `rounds` times, alternating, so a noisy neighbour hits them all
 * alike; its CPU from /proc over the block divided by the responses. Blocks are long enough for
 * /proc's 10 ms ticks to be under 1% of what they measure, even for a bare node:http answer.
 */
export async function costs<K extends string>(
  targets: Record<K, Costed>,
  options: { ms: number; rounds: number; concurrency: number; meters?: Record<string, () => number> },
): Promise<Record<K, Cost>> {
  const names = Object.keys(targets) as K[];
  const meters = Object.entries(options.meters ?? {});
  type Block = { cpuUs: number; alsoUs: Record<string, number>; perS: number; responses: number; failed: number };
  const blocks = Object.fromEntries(names.map((name) => [name, [] as Block[]])) as Record<K, Block[]>;
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names) {
      const { pid, fire } = targets[name];
      let sent = 0;
      let responses = 0;
      let failed = 0;
      const cpuBefore = cpuSeconds(pid);
      const metersBefore = meters.map(([, read]) => read());
      const start = performance.now();
      const until = start + options.ms;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (performance.now() < until) {
            const answer = await fire(sent++);
            responses++;
            if (answer.status !== 200) failed++;
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      const alsoUs = Object.fromEntries(meters.map(([meter, read], i) => [meter, (1e6 * (read() - metersBefore[i]!)) / responses]));
      blocks[name].push({ cpuUs: (1e6 * (cpuSeconds(pid) - cpuBefore)) / responses, alsoUs, perS: responses / seconds, responses, failed });
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const measured = blocks[name];
      return [
        name,
        {
          cpuUs: median(measured.map((b) => b.cpuUs)),
          alsoUs: Object.fromEntries(meters.map(([meter]) => [meter, median(measured.map((b) => b.alsoUs[meter]!))])),
          perS: median(measured.map((b) => b.perS)),
          responses: measured.reduce((sum, b) => sum + b.responses, 0),
          failed: measured.reduce((sum, b) => sum + b.failed, 0),
        },
      ];
    }),
  ) as Record<K, Cost>;
}
