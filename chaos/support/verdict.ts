import type { Check, ExtraCall } from './checks';
import type { Cluster } from './cluster';
import type { FaultWindow } from './faults';
import type { Journal } from './journal';
import { ownershipClean, type OwnershipSamples, type OwnershipSnapshot } from './ownership';
import type { Supervised } from './process';
import type { FaultFigures } from './recovery';
import type { Settings } from './settings';

export interface ProcessRecord {
  name: string;
  /** Exits nobody asked for, each restarted by the supervisor; `started: false` is a start that failed. */
  crashes: Array<{ at_s: number; started: boolean; code: number | null; signal: string | null; stderr: string }>;
  /** Warnings and errors it logged over the whole run, by message. */
  problems: Record<string, number>;
}

/** Counted by Supervised from stderr: only seen with NODE_OPTIONS=--unhandled-rejections=warn. */
const WARNED_REJECTION = 'unhandled promise rejection (warned, not fatal)';

const seconds = (ms: number) => Math.round(ms / 100) / 10;

export function processRecords(processes: readonly Supervised[], since: number): ProcessRecord[] {
  return processes.map((p) => ({
    name: p.name,
    crashes: p.exits.filter((e) => !e.expected).map((e) => ({ at_s: seconds(e.at - since), started: e.wasReady, code: e.code, signal: e.signal, stderr: e.stderr })),
    problems: Object.fromEntries([...p.problems].map(([what, seen]) => [what, seen.count])),
  }));
}

/** Failed load requests while no fault was in progress: before the first one, after the last window closed. */
export function outsideFaults(journal: Journal, windows: readonly FaultWindow[]) {
  const first = windows[0]!.at;
  const last = windows.at(-1)!.endedAt;
  return journal.attempts.filter((a) => !a.ok && a.sender !== 'probe' && (a.endedAt < first || a.startedAt >= last));
}

/** Provider calls whose answer was not the stored one, by the fault window their message was asked again in. */
export function extraCallsByWindow(extra: readonly ExtraCall[], windows: readonly FaultWindow[]): Record<string, { cut_off: number; completed_not_stored: number }> {
  const byWindow: Record<string, { cut_off: number; completed_not_stored: number }> = {};
  for (const { call, retriedAt } of extra) {
    // By when the message was asked again: a call cut by a fault may have started just before it.
    const when = retriedAt ?? call.startedAt;
    const window = windows.find((w) => when >= w.at && when <= w.endedAt);
    const entry = (byWindow[window?.kind ?? 'no fault'] ??= { cut_off: 0, completed_not_stored: 0 });
    if (call.closedEarly) entry.cut_off++;
    else entry.completed_not_stored++;
  }
  return byWindow;
}

interface RunFacts {
  journal: Journal;
  windows: readonly FaultWindow[];
  faults: readonly FaultFigures[];
  ownership: OwnershipSnapshot;
  samples: OwnershipSamples;
  cluster: Cluster;
  processes: readonly ProcessRecord[];
  settings: Settings;
  loadStartedAt: number;
  nodeOptions: string | null;
}

/** The run-level checks: ownership, recovery bounds, crashes, liveness, no hang, calm outside faults. */
export function runChecks(f: RunFacts): Check[] {
  const { journal, windows, faults, ownership, settings } = f;
  const describe = (name: string, c: ProcessRecord['crashes'][number]) => `${name} at ${c.at_s} s (exit ${String(c.code ?? c.signal)}): ${crashSummary(c.stderr)}`;
  const crashes = f.processes.flatMap((p) => p.crashes.filter((c) => c.started).map((c) => describe(p.name, c)));
  // A process waits for Redis at start rather than exiting, so a start that fails is a crash too.
  const failedStarts = f.processes.flatMap((p) => p.crashes.filter((c) => !c.started).map((c) => `${describe(p.name, c)} (a start that failed)`));
  const warned = f.processes.flatMap((p) => (p.problems[WARNED_REJECTION] ? [{ name: p.name, count: p.problems[WARNED_REJECTION] }] : []));
  const unfinished = [...journal.messages.filter((m) => m.result !== 'answered' && m.result !== 'held'), ...journal.replies.filter((r) => r.result !== 'sent')];
  const hung = journal.attempts.filter((a) => a.outcome === 'timeout' || a.outcome.includes('(timeout)'));
  const outside = outsideFaults(journal, windows);
  const ownershipProblems = [
    ...windows.filter((w) => !ownershipClean(w.ownership)).map((w) => `after ${w.kind}: ${describeOwnership(w.ownership)}`),
    ...(ownershipClean(ownership) ? [] : [`at the end: ${describeOwnership(ownership)}`]),
    ...f.samples.twoOwners.map((id) => `during the load: conversation ${id} active on two nodes that both served its shard`),
  ];
  const boundMisses = faults.flatMap((fault) => fault.bounds.filter((b) => !b.pass).map((b) => `${fault.kind}: ${b.measures} took ${b.measured_s} s, bound ${b.limit_s} s (${b.rule})`));
  return [
    {
      name: 'every conversation has at most one owner, the lease holder of its shard',
      pass: ownershipProblems.length === 0,
      detail:
        `after each fault and at the end: every shard served once, by its lease holder, every active conversation on that node only (${ownership.activeConversations} at the end); ` +
        `once a second during the load: ${f.samples.samples} looks (${f.samples.conclusive} within 250 ms), ${f.samples.twoOwners.length} conversations on two serving nodes` +
        (f.samples.twoOwnersInconclusive ? ` (${f.samples.twoOwnersInconclusive} more in slower looks, where a shard may have moved between answers)` : ''),
      examples: ownershipProblems,
    },
    {
      name: 'service resumed within the documented bound after every fault',
      pass: boundMisses.length === 0,
      detail: faults.map((fault) => `${fault.kind}: ${fault.bounds.map((b) => `${b.measured_s} <= ${b.limit_s} s`).join(', ')}`).join('; '),
      examples: boundMisses,
    },
    postgresAnswersCheck(journal, windows),
    startedWhileDownCheck(faults),
    {
      name: 'no process crashed (exited without being told to, or would have)',
      pass: crashes.length === 0 && failedStarts.length === 0 && warned.length === 0,
      detail:
        `${crashes.length} unexpected exits of a running process over ${f.cluster.processes.length} supervised processes; ${failedStarts.length} starts that failed` +
        (f.nodeOptions ? `; ${warned.reduce((sum, w) => sum + w.count, 0)} unhandled rejections only warned about (NODE_OPTIONS), each fatal in a normal run` : ''),
      examples: [...crashes, ...warned.map((w) => `${w.name}: ${w.count} unhandled rejections (warned)`), ...failedStarts],
    },
    {
      name: 'every message and reply got through (none given up)',
      pass: unfinished.length === 0,
      detail: `${journal.messages.length} visitor messages and ${journal.replies.length} agent replies; ${unfinished.length} not through within ${settings.giveUpMs / 1000} s`,
      examples: unfinished.map((u) => ('visitor' in u ? `visitor ${u.visitor} ${u.clientId}` : `${u.agent} ${u.clientId}`)).slice(0, 5),
    },
    {
      name: 'no request hung',
      pass: hung.length === 0,
      detail: `${hung.length} requests cut by the client: a stream 60 s without a byte (the widget's rule), an agent reply without an answer for 30 s (15 s for the probe)`,
      examples: hung.slice(0, 5).map((a) => `${a.sender} ${a.who} via ${a.node}: ${a.outcome}`),
    },
    {
      name: 'no request failed while no fault was in progress',
      pass: outside.length === 0,
      detail: `${outside.length} failed before the first fault or after the last window closed`,
      examples: outside.slice(0, 5).map((a) => `${a.sender} ${a.who} via ${a.node} at ${seconds(a.endedAt - f.loadStartedAt)} s: ${a.outcome}`),
    },
  ];
}

/**
 * While Postgres restarts, every answer (load and probe) is a success or an honest refusal: 503 with
 * `Retry-After`. A stream whose message was stored before the database went away has already
 * answered 200; its `error` event is counted apart, as are requests that got no answer at all.
 */
function postgresAnswersCheck(journal: Journal, windows: readonly FaultWindow[]): Check {
  const name = 'every answer during the Postgres restart is a success or 503 with Retry-After (never 500)';
  const window = windows.find((w) => w.kind === 'postgres');
  if (!window) return { name, pass: false, detail: 'no Postgres fault ran', examples: [] };
  const answers = journal.attempts.filter((a) => a.endedAt >= window.at && a.endedAt <= window.endedAt);
  const refused = answers.filter((a) => a.status === 503 && a.retryAfter !== undefined);
  const dishonest = answers.filter((a) => a.status >= 400 && !refused.includes(a));
  const interrupted = answers.filter((a) => a.status > 0 && a.status < 400 && !a.ok);
  const unanswered = answers.filter((a) => a.status === 0);
  return {
    name,
    pass: dishonest.length === 0,
    detail:
      `${answers.length} requests ended in the window: ${answers.filter((a) => a.ok).length} succeeded, ${refused.length} 503 with Retry-After, ` +
      `${interrupted.length} streams cut after their message was stored (200, then an error event), ${unanswered.length} without an answer; ${dishonest.length} other errors`,
    examples: dishonest.slice(0, 5).map((a) => `${a.sender} ${a.who} via ${a.node}: ${a.outcome}${a.status === 503 ? ' (no Retry-After)' : ''}`),
  };
}

/** A process can take this long after Redis is back: its reconnect back-off (at most 2 s), then the rest of its start. */
const STARTED_WHILE_DOWN_LIMIT_S = 10;

/** The web node and the worker started while Redis was down waited for it, then came up once it was back. */
function startedWhileDownCheck(faults: readonly FaultFigures[]): Check {
  const started = faults.flatMap((f) => f.started_while_down);
  const late = started.filter((p) => p.ready_after_back_s === null || p.ready_after_back_s > STARTED_WHILE_DOWN_LIMIT_S);
  return {
    name: 'a process started while Redis is down comes up once it is back',
    pass: started.length > 0 && late.length === 0,
    detail: `${started.length} processes started while Redis was down: ${started.map((p) => `${p.process} ${p.failure ? 'never ready' : `ready ${p.ready_after_back_s} s after Redis was back`}`).join(', ')} (allowed ${STARTED_WHILE_DOWN_LIMIT_S} s)`,
    examples: late.map((p) => `${p.process}: ${p.failure ?? `ready only ${p.ready_after_back_s} s after Redis was back`}`),
  };
}

/** Every failed request, cluster event and provider call whose answer was not stored, in order, seconds from the start of the load. */
export function timeline(journal: Journal, cluster: Cluster, windows: readonly FaultWindow[], extra: readonly ExtraCall[], since: number): string[] {
  const at = (ms: number) => ((ms - since) / 1000).toFixed(2).padStart(7);
  const entries: Array<[number, string]> = [
    ...windows.flatMap((w): Array<[number, string]> => [
      [w.at, `FAULT ${w.kind}${w.victim ? ` ${w.victim}` : ''}`],
      [w.backAt, `BACK ${w.kind}`],
      [w.endedAt, `WINDOW CLOSED ${w.kind}`],
    ]),
    ...journal.attempts.filter((a) => !a.ok).map((a): [number, string] => [a.endedAt, `${a.sender} ${a.who} via ${a.node} (${((a.endedAt - a.startedAt) / 1000).toFixed(2)} s): ${a.outcome}`]),
    ...cluster.processes.flatMap((p) => p.notable.map((e): [number, string] => [e.at, `${p.name}: ${e.msg}`])),
    ...cluster.processes.flatMap((p) => p.exits.map((e): [number, string] => [e.at, `${p.name}: exited (${String(e.code ?? e.signal)})${e.expected ? '' : ' CRASH'}`])),
    ...extra.map(({ call, retriedAt }): [number, string] => [
      call.endedAt ?? call.startedAt,
      `provider call ${call.serial} for [${call.tag ?? '?'}] (started ${at(call.startedAt).trim()}) ${call.closedEarly ? 'cut off by its caller' : 'finished'}; answer not stored; asked again at ${retriedAt === undefined ? '?' : at(retriedAt).trim()}`,
    ]),
  ];
  return entries.filter(([t]) => t >= since).sort((a, b) => a[0] - b[0]).map(([t, what]) => `${at(t)}  ${what}`);
}

/** The error that ended a process: its last `SomethingError: message` line and the frame under it. */
function crashSummary(stderr: string): string {
  const lines = stderr.split('\n');
  const at = lines.findLastIndex((l) => /\b\w*Error: /.test(l));
  if (at < 0) return lines.filter((l) => l.trim()).at(-1) ?? '(no stderr)';
  return `${lines[at]!.trim()} ${lines[at + 1]?.trim() ?? ''}`.trim();
}

function describeOwnership(s: OwnershipSnapshot): string {
  return (
    `${s.shardsServed} shards served (${s.shardsServedTwice} twice, ${s.shardsWithoutLease} without the lease), ` +
    `${s.twoOwners.length} conversations on two nodes, ${s.notLeaseHolder.length} off the lease holder, ${s.staleCopies.length} stale copies`
  );
}
