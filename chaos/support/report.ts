import type { ChaosResult } from '../scenario';

const yes = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

/** The human report: printed at the end of a run and written beside latest.json. */
export function formatReport(r: ChaosResult): string {
  const m = r.machine;
  const t = r.settings;
  const lines = [
    `${yes(r.pass)}  chaos suite (${r.nodeOptions ? `NODE_OPTIONS='${r.nodeOptions}' ` : ''}${r.command}), ${r.startedAt}, ${r.seconds} s, commit ${r.source.commit}${r.source.dirty ? ' (uncommitted changes)' : ''}`,
    `machine: ${m.cpus} x ${m.cpuModel}, ${m.memoryGb} GB, ${m.os}, node ${m.node}, postgres ${m.postgres}, redis ${m.redis}`,
    `         load average ${m.loadAverageStart} at the start, ${m.loadAverageEnd} at the end; all cores ${Math.round(m.machineBusyShare * 100)}% busy during the load`,
    `cluster: ${t.web_nodes} web nodes + ${t.workers} worker, ${t.timings} timings (heartbeat ${t.heartbeat_ms} ms, lease TTL ${t.lease_ttl_ms} ms, dead after ${t.dead_after_ms} ms, join window ${t.join_window_ms} ms, tick ${t.tick_ms} ms)`,
    `load:    ${t.bot_visitors} visitors with the AI + ${t.handoff_visitors} with agents, ${t.agents} agents, ${t.probe_conversations} probe conversations; ` +
      `${r.load.duration_s} s, ${r.load.requests} requests (${r.load.requests_per_s}/s), ${r.load.visitor_messages} visitor messages, ${r.load.agent_replies} agent replies, ${r.load.probe_replies} probe replies`,
    '',
    'faults (times in seconds from the fault; "back" = the fault was over):',
  ];
  for (const f of r.faults) {
    lines.push(`  ${f.kind.padEnd(8)} ${f.title}${f.victim ? ` [${f.victim}]` : ''} at ${f.at_s} s, over after ${f.down_s} s`);
    lines.push(
      `           probe (${f.probe_targets} conversations): answered again after ${f.probe_resumed_s ?? 'never'} (p50 ${f.probe_resumed_p50_s ?? '-'}; ${f.probe_resumed_after_back_s ?? '-'} after back)`,
    );
    lines.push(
      `           load: ${f.failed} of ${f.attempts} requests failed (${f.affected_conversations} conversations); first success ${f.first_success_s ?? '-'}; ` +
        `error-free after ${f.error_free_s} (${f.error_free_after_back_s} after back); ${f.failed_after_back} failures after back; longest request ${f.longest_request_s}${f.victim ? ` (${f.longest_request_elsewhere_s} not via ${f.victim})` : ''}`,
    );
    const kinds = Object.entries(f.failures).sort((a, b) => b[1] - a[1]);
    if (kinds.length) lines.push(`           failures: ${kinds.map(([what, n]) => `${what} x${n}`).join(', ')}`);
    const probeKinds = Object.entries(f.probe_failures).sort((a, b) => b[1] - a[1]);
    if (probeKinds.length) lines.push(`           probe attempts that failed: ${probeKinds.map(([what, n]) => `${what} x${n}`).join(', ')}`);
    for (const b of f.bounds) lines.push(`           ${yes(b.pass)} ${b.measures}: ${b.measured_s} s <= ${b.limit_s} s (${b.rule})`);
    const events = Object.entries(f.events).map(([who, seen]) => `${who}: ${Object.entries(seen).map(([what, n]) => `${what} x${n}`).join(', ')}`);
    if (events.length) lines.push(`           cluster: ${events.join('; ')}`);
    for (const p of f.started_while_down) {
      lines.push(`           started while it was down: ${p.process} ${p.failure ? `did not come up: ${p.failure}` : `ready ${p.ready_after_back_s} s after back`}`);
    }
    lines.push(`           one owner per conversation afterwards: ${f.one_owner_after ? 'yes' : 'NO'}`);
    for (const note of f.notes) lines.push(`           note: ${note}`);
  }
  const s = r.store;
  lines.push(
    '',
    `store: ${s.messagesStored} messages in ${s.conversations} conversations; ${s.aiAnswersStored} AI answers from ${s.providerCalls} provider calls; ` +
      `${s.storedUnacknowledged} visitor messages stored without an acknowledgement; ${s.clientIdsInTwoConversations} client ids in two conversations`,
    `       provider calls whose answer was not the stored one, by the window the message was asked again in: ${
      Object.entries(s.extra_calls_by_window).map(([w, n]) => `${w}: ${n.cut_off} cut off, ${n.completed_not_stored} finished but not stored`).join('; ') || 'none'
    }`,
    `       activations at the end (tracked / hosted, all kinds): ${Object.entries(r.ownership.activations).map(([n, a]) => `${n} ${a.tracked}/${a.host}`).join(', ')}`,
  );
  const w = r.webhooks;
  lines.push(
    '',
    `webhooks: ${w.events} events in ${w.conversations} conversations; ${w.requests} requests to the receiver, ${w.accepted} accepted, ${w.refusedByReceiver} answered 500 or left hanging, ${w.unverified} unverified`,
    `          duplicates before dedupe: ${w.duplicatesBeforeDedupe}; delay from commit to first acceptance: p50 ${w.delayP50_s} s, worst ${w.delayMax_s} s; drained ${w.drain_s} s after the load stopped`,
    `          fault: receiver 500 for ${w.fault.receiver_failing_s} s then hanging for ${w.fault.receiver_hanging_s} s; worker killed at ${w.fault.worker_killed_at_s} s with ${w.fault.in_flight_at_kill} deliveries in flight; deliveries ${Object.entries(w.deliveries).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    '',
    'checks:',
  );
  for (const c of r.checks) {
    lines.push(`  ${yes(c.pass)} ${c.name}`, `       ${c.detail}`);
    for (const e of c.examples) lines.push(`       - ${e}`);
  }
  const problems = r.processes.filter((p) => Object.keys(p.problems).length);
  if (problems.length) {
    lines.push('', 'warnings and errors the processes logged (whole run):');
    for (const p of problems) {
      const top = Object.entries(p.problems).sort((a, b) => b[1] - a[1]).slice(0, 8);
      lines.push(`  ${p.name}: ${top.map(([what, n]) => `${what} x${n}`).join('; ')}`);
    }
  }
  return lines.join('\n');
}
