import { resolve } from 'node:path';
import { instructions, SLOW_CLUSTER, underCallgrind, windowedInstructions } from './support/callgrind';
import { defer, scoped } from './support/cleanup';
import { childEnv } from './support/processes';
import { freshIp, postWidgetStream, type Target } from './support/sseClient';
import { streamBench } from './support/streamSetup';
import { paceText, type Pace } from './support/tokenProvider';
import { streamAgent } from './support/webNode';

/**
 * Instructions per widget stream start and per whole short answer, counted by valgrind's callgrind,
 * A/B: the same count whatever else runs on the machine, where the `ttfd` bench's CPU to `meta` moves
 * by a third between runs (docs/performance.md, "Stream start, sixth round"). Per build (START_ROOTS,
 * comma-separated checkouts with dist built; default this one), one web node (cluster mode on Redis,
 * as `ttfd` runs it) on its own database under callgrind, the bench provider in its own process.
 * Conversations are opened and warmed (first messages and follow-ups, uncounted); then, as `ttfd`'s
 * `startCosts` does, follow-ups one at a time on the node owning them (the only node):
 * - starts: instrumentation on just before the request is written, off when the client read `meta`;
 *   the provider holds the first token back (START_PACE) so nothing after its call is counted;
 * - whole answers: instrumentation on over a sequential phase of follow-ups answered with 3 tokens
 *   (`done`, the answer stored) and what they leave for later;
 * each less the node's idle count per second for the windows' wall time. Usage (after `npm run
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
const IDLE_MS = 20_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

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
      const idlePerS = idle.ir / idle.seconds;

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
      const perUnit = (phase: { ir: number; seconds: number }) => Math.round((phase.ir - idlePerS * phase.seconds) / followUps);
      process.stdout.write(
        `${JSON.stringify({
          root,
          follow_ups: followUps,
          instructions_per_start_less_idle: perUnit(starts),
          instructions_per_start: Math.round(starts.ir / followUps),
          instructions_per_answer_less_idle: perUnit(whole),
          instructions_per_answer: Math.round(whole.ir / followUps),
          idle_instructions_per_s: Math.round(idlePerS),
          start_window_seconds: Number((starts.seconds / followUps).toFixed(2)),
          answers_seconds: Number(whole.seconds.toFixed(1)),
        })}\n`,
      );
      node.child.kill('SIGKILL');
    }
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  },
);
