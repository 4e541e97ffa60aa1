import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { idleWindows, instructions, SLOW_CLUSTER, underCallgrind, windowedInstructions, type Count } from './support/callgrind';
import { defer, scoped } from './support/cleanup';
import { childEnv } from './support/processes';
import { freshIp, postWidgetStream, type Target } from './support/sseClient';
import { streamBench } from './support/streamSetup';
import { paceText, type Pace } from './support/tokenProvider';
import { streamAgent } from './support/webNode';
import { runScript } from './support/runScript';
import { middleMedian, percentile } from './support/stats';

/**
 * Instructions per widget stream start and per whole short answer, counted by valgrind's callgrind,
 * A/B: the same count whatever else runs on the machine, where the `ttfd` bench's CPU to `meta` moves
 * by a third between runs (docs/performance.md, "Stream start, sixth round"). Per build (START_ROOTS,
 * comma-separated checkouts with dist built; default this one), one web node (cluster mode on Redis,
 * as `ttfd` runs it) on its own database under callgrind, the bench provider in its own process.
 * Conversations are opened and warmed (first messages and follow-ups, uncounted); then, as `ttfd`'s
 * `startCosts` does, follow-ups one at a time on the node owning them (the only node):
 * - starts: a dump just before the request is written and another when the client read `meta`
 *   (windowedInstructions); the provider holds the first token back (START_PACE) so nothing after
 *   its call is counted. Reported as the median window (the node's background comes in bursts that
 *   land in a few windows) less the median idle window's rate for its length, as the mean less the
 *   idle phase's rate, and as the lower quartile of the windows (those with the least background);
 * - whole answers: instrumentation on over a sequential phase of follow-ups answered with 3 tokens
 *   (`done`, the answer stored) and what they leave for later, less the idle phase's rate.
 * Each for the JavaScript thread alone (`main_thread`: less V8's worker threads, whose optimizing
 * compiler is still tiering code up after the warm-up and swings a phase by a third) and for all
 * threads. Usage (after `npm run
 * build`): `node dist/bench/startInstructions.js [follow-ups]`; needs valgrind. START_KEEP=<dir>
 * keeps each phase's callgrind dump there for callgrind_annotate. One JSON line per build.
 */
const CONVERSATIONS = 20;
const WARM_ROUNDS = 4;
/** The whole answer as `ttfd` sends it: the first token at once, two more. */
const PACE: Pace = { tokens: 3, everyMs: 5, firstMs: 0 };
/** Under callgrind `meta` and the instrumentation switch take seconds: the first token waits well past both. */
const START_PACE: Pace = { tokens: 3, everyMs: 5, firstMs: 4_000 };
const SETTLE_MS = 5_000;
/** An idle window's length: about a start's window (the dumps that open and close it included). */
const IDLE_WINDOW_MS = 1_500;
const IDLE_MS = 20_000;

/** One widget stream; `onMeta` when the client reads `meta`. Resolves with the conversation's id, or throws unless it ended with `done`. */
async function stream(target: Target, key: string, body: Record<string, unknown>, onMeta: () => void = () => undefined): Promise<string> {
  let conversationId = '';
  const { outcome } = postWidgetStream(target, key, body, freshIp(), (event, data) => {
    if (event !== 'meta') return;
    onMeta();
    conversationId = (JSON.parse(data) as { conversation_id: string }).conversation_id;
  });
  const ended = await outcome;
  if (ended.lastEvent !== 'done' || !conversationId) throw new Error(`stream failed: HTTP ${ended.status}, last event ${ended.lastEvent || '-'} ${(ended.lastData || ended.detail || '').slice(0, 300)}`);
  return conversationId;
}

async function main(): Promise<void> {
  const followUps = Number(process.argv[2] ?? 20);
  const roots = (process.env.START_ROOTS ?? resolve(__dirname, '../..')).split(',');
  const keep = process.env.START_KEEP;
  await scoped(async () => {
    for (const [index, root] of roots.entries()) {
      const bench = await streamBench(`startinstr${index}`);
      const node = await underCallgrind(resolve(root, 'dist/test/support/cluster/nodeMain.js'), childEnv({ ...bench.nodeEnv, NODE_ID: `si-${index}`, PORT: '0', LOG_LEVEL: 'info', ...SLOW_CLUSTER }));
      const agent = streamAgent();
      defer('close client sockets', () => agent.destroy());
      const target: Target = { host: '127.0.0.1', port: node.port, agent };
      const key = bench.bot.publicKey;
      let asked = 0;
      const followUp = (visitor: string, id: string, pace: Pace, onMeta?: () => void) => stream(target, key, { visitor_id: visitor, conversation_id: id, message: `${paceText(pace)} (question ${++asked})` }, onMeta);

      const conversations: Array<{ visitor: string; id: string }> = [];
      for (let i = 0; i < CONVERSATIONS; i++) {
        const visitor = `si-visitor-${index}-${i}`;
        for (let tries = 0; ; tries++) {
          try {
            conversations.push({ visitor, id: await stream(target, key, { visitor_id: visitor, message: `${paceText(PACE)} (hello ${i})` }) });
            break;
          } catch (error) {
            if (tries > 20) throw error;
            await sleep(2_000);
          }
        }
      }
      // Warm: every conversation answered a few times (the flood rule allows 10 lines a minute per conversation).
      for (let round = 0; round < WARM_ROUNDS; round++) for (const c of conversations) await followUp(c.visitor, c.id, PACE);
      await sleep(SETTLE_MS);
      const idle = await instructions(node, () => sleep(IDLE_MS), keep && resolve(keep, `idle-${index}.out`));

      const nth = (n: number) => conversations[n % conversations.length]!;
      const starts = await windowedInstructions(
        node,
        async (open, close) => {
          for (let n = 0; n < followUps; n++) {
            open();
            await followUp(nth(n).visitor, nth(n).id, START_PACE, close);
          }
        },
        keep && resolve(keep, `starts-${index}.out`),
      );
      if (starts.windows !== followUps) throw new Error(`${followUps - starts.windows} starts never read meta`);
      const whole = await instructions(
        node,
        async () => {
          for (let n = 0; n < followUps; n++) await followUp(nth(n).visitor, nth(n).id, PACE);
          await sleep(SETTLE_MS);
        },
        keep && resolve(keep, `answers-${index}.out`),
      );
      // The node's background comes in bursts (cluster heartbeat, BullMQ's checks, GC) that land in a few
      // windows of a few seconds: the median window says what a start costs, the mean what it costs with them.
      const idleStarts = await idleWindows(node, followUps, IDLE_WINDOW_MS);
      const idleMedianPerS = (of: 'ir' | 'mainIr') => middleMedian(idleStarts.each.map((w) => w[of] / w.seconds));
      const idleRate = (of: 'ir' | 'mainIr') => idle[of] / idle.seconds;
      const perUnit = (phase: Count & { seconds: number }, of: 'ir' | 'mainIr') => Math.round((phase[of] - idleRate(of) * phase.seconds) / followUps);
      const figures = (of: 'ir' | 'mainIr') => ({
        per_start_median_less_idle: Math.round(middleMedian(starts.each.map((w) => w[of] - idleMedianPerS(of) * w.seconds))),
        per_start_median: Math.round(middleMedian(starts.each.map((w) => w[of]))),
        // The windows with the least background in them (a quarter of them hold less): the start's own floor, steadier between runs than the median.
        per_start_lower_quartile: Math.round(percentile([...starts.each.map((w) => w[of])].sort((a, b) => a - b), 25)),
        per_start_less_idle: perUnit(starts, of),
        per_answer_less_idle: perUnit(whole, of),
        per_answer: Math.round(whole[of] / followUps),
        idle_per_s: Math.round(idleRate(of)),
        idle_window_median_per_s: Math.round(idleMedianPerS(of)),
      });
      process.stdout.write(
        `${JSON.stringify({
          root,
          follow_ups: followUps,
          main_thread: figures('mainIr'),
          all_threads: figures('ir'),
          start_window_seconds: Number((starts.seconds / followUps).toFixed(2)),
          answers_seconds: Number(whole.seconds.toFixed(1)),
        })}\n`,
      );
      node.child.kill('SIGKILL');
    }
  });
}

runScript(main);
