import { strict as assert } from 'node:assert';
import { judge, measuredText, type AgentRecord, type StoredMessage } from '../../bench/support/liveInboxChecks';
import type { Received } from '../../bench/support/liveInboxAgent';

const C = '00000000-0000-4000-8000-000000000001';
const created = (id: number, seq: number, at: number, content = 'hi'): Received => ({ event: 'message.created', conversationId: C, seq, data: { id, content }, at });
const typing = (seq: number, on: boolean): Received => ({ event: 'typing', conversationId: C, seq, data: { who: 'agent', name: 'Agent 1', typing: on }, at: 0 });
const watchers = (seq: number, ids: number[]): Received => ({ event: 'conversation.watchers', conversationId: C, seq, data: { watchers: ids.map((id) => ({ id, name: `Agent ${id}` })) }, at: 0 });
const agent = (received: Received[], since = 100): AgentRecord => ({ index: 0, userId: 7, node: 1, received, watchingSince: new Map([[C, since]]) });
const stored: StoredMessage[] = [
  { id: 1, conversationId: C, createdAt: 50 },
  { id: 2, conversationId: C, createdAt: 150 },
  { id: 3, conversationId: C, createdAt: 250 },
];
const watching = new Map([[C, new Set([7, 8])]]);

describe('live inbox bench checks', () => {
  it('accepts a complete, ordered record and times measured messages from their send', () => {
    const verdict = judge([agent([watchers(1, [7]), created(2, 2, 160), typing(2, true), watchers(2, [7, 8]), typing(2, false), created(3, 3, 270, measuredText(4))])], stored, watching, new Map([[4, { sentAt: 250, node: 0 }]]));
    assert.deepEqual([verdict.missing, verdict.duplicates, verdict.outOfOrder, verdict.unknown, verdict.staleWatchers], [0, 0, 0, 0, 0]);
    assert.deepEqual(verdict.latencies, { all: [20], crossNode: [20] });
    assert.deepEqual(verdict.counts, { 'message.created': 2, typing: 2, 'conversation.watchers': 2 });
  });

  it('counts a message stored after the subscription that never arrived, but not one from before it', () => {
    const verdict = judge([agent([created(2, 2, 160), watchers(2, [7, 8])])], stored, watching, new Map());
    assert.equal(verdict.missing, 1);
    assert.match(verdict.examples[0]!, /message 3 never arrived/);
  });

  it('counts duplicates, a falling seq, a message that is not stored and a stale watcher list', () => {
    const verdict = judge([agent([created(2, 2, 160), created(2, 2, 161), typing(3, true), typing(3, true), created(3, 3, 270), created(9, 2, 280), watchers(3, [7])])], stored, watching, new Map());
    assert.equal(verdict.duplicates, 2);
    assert.equal(verdict.outOfOrder, 1);
    assert.equal(verdict.unknown, 1);
    assert.equal(verdict.staleWatchers, 1);
  });
});
