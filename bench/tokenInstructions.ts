import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { instructions, SLOW_CLUSTER, underCallgrind } from './support/callgrind';
import { defer, scoped } from './support/cleanup';
import { childEnv } from './support/processes';
import { runScript } from './support/runScript';
import { freshIp, postWidgetStream, type Target } from './support/sseClient';
import { streamBench } from './support/streamSetup';
import { paceText, tokensIn, type Pace } from './support/tokenProvider';
import { streamAgent, WebNode } from './support/webNode';
import { hotSpots, monotonicUs, newestProfile } from './support/profile';

/**
 * Instructions per streamed token while relaying only, counted by valgrind's callgrind, A/B: the
 * `streams` bench's CPU per token moves by a third with the machine's load; this count does not. Per
 * build (TOKEN_ROOTS, comma-separated checkouts with dist built; default this one), one web node
 * (cluster mode on Redis, as `streams` runs it) on its own database under callgrind, the bench
 * provider in its own process. STREAMS widget streams (default 100: above the 64 at which reads and
 * writes are paced to the 50 ms window) are opened and left streaming; once all of them streamed
 * for a while, instrumentation is on for WINDOW_S seconds and the tokens the client received in them
 * are counted. Under callgrind the node runs tens of times slower, so the pace is slow (2 tokens a
 * second a stream by default, TOKEN_EVERY_MS): every token is then a read of its own and a write of
 * its own (a window never holds two of a stream's tokens), which is the per-read-and-write cost.
 * Reported: instructions per token, the JavaScript thread alone (less V8's worker threads) and all
 * threads, less the idle rate (the node with no stream open, measured first). Usage (after `npm run
 * build`): `node dist/bench/tokenInstructions.js [streams]`; needs valgrind. TOKEN_KEEP=<dir> keeps
 * the dumps for callgrind_annotate. One JSON line per build. TOKEN_PROFILE=1 runs the node natively
 * with --cpu-prof instead (no instruction count): the window's CPU per token from /proc and its hot spots.
 */
const PROFILE = process.env.TOKEN_PROFILE === '1';
/** utime + stime of a process, in microseconds (10 ms ticks). */
const cpuUs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
const EVERY_MS = Number(process.env.TOKEN_EVERY_MS ?? 500);
const WINDOW_S = Number(process.env.TOKEN_WINDOW_S ?? 20);
const IDLE_S = 10;
const SETTLE_MS = Number(process.env.TOKEN_SETTLE_MS ?? 15_000);
/** Streams long enough to outlast the ramp under callgrind, the settling and the window. */
const STREAM_MS = 600_000;

async function main(): Promise<void> {
  const streams = Number(process.argv[2] ?? 100);
  const roots = (process.env.TOKEN_ROOTS ?? resolve(__dirname, '../..')).split(',');
  const keep = process.env.TOKEN_KEEP;
  const pace: Pace = { tokens: Math.ceil(STREAM_MS / EVERY_MS), everyMs: EVERY_MS, firstMs: 0 };
  await scoped(async () => {
    for (const [index, root] of roots.entries()) {
      const bench = await streamBench(`tokeninstr${index}`);
      if (PROFILE) {
        await profiled(root, bench.nodeEnv, bench.bot.publicKey, streams, pace);
        continue;
      }
      const node = await underCallgrind(resolve(root, 'dist/test/support/cluster/nodeMain.js'), childEnv({ ...bench.nodeEnv, NODE_ID: `ti-${index}`, PORT: '0', LOG_LEVEL: 'info', ...SLOW_CLUSTER }));
      const agent = streamAgent();
      defer('close client sockets', () => agent.destroy());
      const target: Target = { host: '127.0.0.1', port: node.port, agent };
      const key = bench.bot.publicKey;

      // Warm: a few short answers, one after the other (the first ones compile the whole path).
      for (let i = 0; i < 10; i++) {
        const { outcome } = postWidgetStream(target, key, { visitor_id: `ti-warm-${index}-${i}`, message: `${paceText({ tokens: 20, everyMs: 5, firstMs: 0 })} (warm ${i})` }, freshIp(), () => undefined);
        const ended = await outcome;
        if (ended.lastEvent !== 'done') throw new Error(`warm-up stream failed: HTTP ${ended.status} ${ended.lastEvent} ${(ended.lastData || ended.detail || '').slice(0, 300)}`);
      }
      await sleep(3_000);
      const idle = await instructions(node, () => sleep(IDLE_S * 1000));

      let tokens = 0;
      let streaming = 0;
      let failed = 0;
      const aborts: Array<() => void> = [];
      for (let i = 0; i < streams; i++) {
        let first = true;
        const { outcome, abort } = postWidgetStream(target, key, { visitor_id: `ti-${index}-${i}`, message: `${paceText(pace)} (stream ${i})` }, freshIp(), (event, data) => {
          if (event !== 'delta') return;
          if (first) streaming++;
          first = false;
          tokens += tokensIn(data).length;
        });
        aborts.push(abort);
        void outcome.then((ended) => {
          if (ended.lastEvent !== 'done') failed++;
        });
        await sleep(100);
      }
      for (let waited = 0; streaming < streams; waited++) {
        if (waited > 600 || failed) throw new Error(`${streaming} of ${streams} streaming, ${failed} failed`);
        await sleep(1_000);
      }
      await sleep(SETTLE_MS);
      let before = 0;
      const relaying = await instructions(
        node,
        async () => {
          before = tokens;
          await sleep(WINDOW_S * 1000);
        },
        keep && resolve(keep, `relaying-${index}.out`),
      );
      const delivered = tokens - before;
      if (failed) throw new Error(`${failed} streams failed during the window`);
      const perToken = (of: 'ir' | 'mainIr') => Math.round((relaying[of] - (idle[of] / idle.seconds) * relaying.seconds) / delivered);
      process.stdout.write(
        `${JSON.stringify({
          root,
          streams,
          every_ms: EVERY_MS,
          window_s: Number(relaying.seconds.toFixed(1)),
          tokens: delivered,
          expected_tokens: Math.round((streams * relaying.seconds * 1000) / EVERY_MS),
          main_thread_per_token: perToken('mainIr'),
          all_threads_per_token: perToken('ir'),
          main_thread_per_token_raw: Math.round(relaying.mainIr / delivered),
          idle_main_per_s: Math.round(idle.mainIr / idle.seconds),
        })}\n`,
      );
      for (const abort of aborts) abort();
      node.child.kill('SIGKILL');
    }
  });
}

/** The same streams on a native node under --cpu-prof: CPU per token over the window and the window's hot spots. */
async function profiled(root: string, env: Record<string, string>, key: string, streams: number, pace: Pace): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tokenprof-'));
  const node = await WebNode.start('ti-prof', env, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const agent = streamAgent();
  defer('close client sockets', () => agent.destroy());
  const target: Target = { host: '127.0.0.1', port: node.port, agent };
  let tokens = 0;
  let streaming = 0;
  const aborts: Array<() => void> = [];
  for (let i = 0; i < streams; i++) {
    let first = true;
    const { abort } = postWidgetStream(target, key, { visitor_id: `tp-${i}-${Date.now()}`, message: `${paceText(pace)} (stream ${i})` }, freshIp(), (event, data) => {
      if (event !== 'delta') return;
      if (first) streaming++;
      first = false;
      tokens += tokensIn(data).length;
    });
    aborts.push(abort);
    await sleep(20);
  }
  while (streaming < streams) await sleep(200);
  await sleep(SETTLE_MS);
  const fromUs = monotonicUs();
  const cpuBefore = cpuUs(node.pid);
  const before = tokens;
  await sleep(WINDOW_S * 1000);
  const cpu = cpuUs(node.pid) - cpuBefore;
  const delivered = tokens - before;
  const toUs = monotonicUs();
  for (const abort of aborts) abort();
  await node.stop();
  const file = newestProfile(dir);
  process.stdout.write(`${JSON.stringify({ root, streams, every_ms: pace.everyMs, tokens: delivered, node_us_per_token: Number((cpu / delivered).toFixed(1)), cores: cpu / 1e6 / WINDOW_S })}\n`);
  if (file) for (const spot of hotSpots(file, 40, [{ fromUs, toUs }])) process.stdout.write(`  ${spot.selfPercent}% ${spot.where}\n`);
}

runScript(main);
