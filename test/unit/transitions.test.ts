import { strict as assert } from 'node:assert';
import type { ConversationStatus, HandoffState } from '../../src/models';
import * as move from '../../src/domain/conversations/transitions';
import type { Changes } from '../../src/domain/conversations/transitions';

const NOW = new Date('2026-11-25T10:00:00Z');
const HOLDER = 7;
const OTHER_AGENT = 8;

type Trigger = (state: State) => Changes | undefined;
interface State {
  status: ConversationStatus;
  handoffState: HandoffState;
  assignedUserId: number | null;
  handoffRequestedAt: Date | null;
}

const TRIGGERS: Record<string, Trigger> = {
  'visitor writes to a closed one': move.reopenByVisitor,
  'agent reopens': move.reopenByAgent,
  'visitor asks for a person': (state) => move.requestHuman(state, NOW),
  'the AI escalates': (state) => move.escalate(state, NOW),
  'the holder takes over (or replies)': (state) => move.takeOver(state, HOLDER),
  'another agent takes over': (state) => move.takeOver(state, OTHER_AGENT),
  release: move.release,
  resolve: (state) => move.resolve(state, NOW),
  'the AI closes it after an idle time': (state) => move.resolveByAi(state, NOW),
  'widget starts a new chat': (state) => move.closeByVisitor(state, NOW),
};

/**
 * Every status x handoff_state x trigger, written from the rules in docs/api.md "Conversations" rather
 * than from the code: `-` is a move that does not apply (nothing is written), anything else the
 * `status/handoff_state[@assigned]` after it. Agent-held rows are held by agent 7; closing keeps the
 * assignee (who handled it), reopening and releasing clear it.
 */
const TABLE: Record<string, Record<string, string>> = {
  'bot/bot_active': {
    'visitor writes to a closed one': '-',
    'agent reopens': '-',
    'visitor asks for a person': 'bot/handoff_pending',
    'the AI escalates': 'bot/handoff_pending',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: '-',
    'the AI closes it after an idle time': 'closed/bot_active',
    resolve: 'closed/bot_active',
    'widget starts a new chat': 'closed/bot_active',
  },
  'bot/handoff_pending': {
    'visitor writes to a closed one': '-',
    'agent reopens': '-',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: '-',
    'the AI closes it after an idle time': '-',
    resolve: 'closed/bot_active',
    'widget starts a new chat': 'closed/bot_active',
  },
  'bot/human_connected': {
    'visitor writes to a closed one': '-',
    'agent reopens': '-',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: '-',
    'the AI closes it after an idle time': '-',
    resolve: 'closed/bot_active',
    'widget starts a new chat': 'closed/bot_active',
  },
  'agent/bot_active': {
    'visitor writes to a closed one': '-',
    'agent reopens': '-',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: 'bot/bot_active',
    'the AI closes it after an idle time': '-',
    resolve: 'closed/bot_active@7',
    'widget starts a new chat': 'closed/bot_active@7',
  },
  'agent/handoff_pending': {
    'visitor writes to a closed one': '-',
    'agent reopens': '-',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: 'bot/bot_active',
    'the AI closes it after an idle time': '-',
    resolve: 'closed/bot_active@7',
    'widget starts a new chat': 'closed/bot_active@7',
  },
  'agent/human_connected': {
    'visitor writes to a closed one': '-',
    'agent reopens': '-',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': '-',
    'another agent takes over': 'agent/human_connected@8',
    release: 'bot/bot_active',
    'the AI closes it after an idle time': '-',
    resolve: 'closed/bot_active@7',
    'widget starts a new chat': 'closed/bot_active@7',
  },
  'closed/bot_active': {
    'visitor writes to a closed one': 'bot/bot_active',
    'agent reopens': 'bot/bot_active',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: '-',
    'the AI closes it after an idle time': '-',
    resolve: '-',
    'widget starts a new chat': '-',
  },
  'closed/handoff_pending': {
    'visitor writes to a closed one': 'bot/bot_active',
    'agent reopens': 'bot/bot_active',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: '-',
    'the AI closes it after an idle time': '-',
    resolve: '-',
    'widget starts a new chat': '-',
  },
  'closed/human_connected': {
    'visitor writes to a closed one': 'bot/bot_active',
    'agent reopens': 'bot/bot_active',
    'visitor asks for a person': '-',
    'the AI escalates': '-',
    'the holder takes over (or replies)': 'agent/human_connected@7',
    'another agent takes over': 'agent/human_connected@8',
    release: '-',
    'the AI closes it after an idle time': '-',
    resolve: '-',
    'widget starts a new chat': '-',
  },
};

const STATUSES: ConversationStatus[] = ['bot', 'agent', 'closed'];
const HANDOFF_STATES: HandoffState[] = ['bot_active', 'handoff_pending', 'human_connected'];

function stateOf(row: string): State {
  const [status, handoffState] = row.split('/') as [ConversationStatus, HandoffState];
  return {
    status,
    handoffState,
    assignedUserId: status === 'agent' ? HOLDER : null,
    handoffRequestedAt: handoffState === 'handoff_pending' ? new Date(NOW.getTime() - 60_000) : null,
  };
}

function outcome(before: State, changes: Changes | undefined): string {
  if (!changes) return '-';
  const after = { ...before, ...changes };
  return `${after.status}/${after.handoffState}${after.assignedUserId === null ? '' : `@${after.assignedUserId}`}`;
}

describe('conversation state machine: every status x handoff_state x trigger', () => {
  it('the table covers every state and every trigger', () => {
    assert.deepEqual(Object.keys(TABLE).sort(), STATUSES.flatMap((s) => HANDOFF_STATES.map((h) => `${s}/${h}`)).sort());
    for (const row of Object.values(TABLE)) assert.deepEqual(Object.keys(row).sort(), Object.keys(TRIGGERS).sort());
  });

  for (const [row, expected] of Object.entries(TABLE)) {
    for (const [trigger, result] of Object.entries(expected)) {
      it(`${row} + ${trigger} -> ${result === '-' ? 'refused, nothing written' : result}`, () => {
        const before = stateOf(row);
        assert.equal(outcome(before, TRIGGERS[trigger]!(before)), result);
      });
    }
  }

  it('the AI answers only in bot/bot_active', () => {
    for (const row of Object.keys(TABLE)) assert.equal(move.aiMayAnswer(stateOf(row)), row === 'bot/bot_active', row);
  });

  it('a wait starts the SLA clock and clears a breach; escalation alone flags escalated', () => {
    const open = stateOf('bot/bot_active');
    assert.deepEqual(move.requestHuman(open, NOW), { handoffState: 'handoff_pending', handoffRequestedAt: NOW, slaBreachedAt: null });
    assert.deepEqual(move.escalate(open, NOW), { handoffState: 'handoff_pending', handoffRequestedAt: NOW, slaBreachedAt: null, escalated: true });
  });

  it('the AI\'s idle close resolves and flags resolved_by_ai', () => {
    assert.deepEqual(move.resolveByAi(stateOf('bot/bot_active'), NOW), {
      status: 'closed', handoffState: 'bot_active', resolution: 'resolved', resolvedByAi: true, resolvedAt: NOW, handoffRequestedAt: null, escalated: false,
    });
  });

  it('resolve sets resolution resolved; the widget reset closes without one; both end the wait and the escalation', () => {
    const waiting = stateOf('bot/handoff_pending');
    const ended = { handoffRequestedAt: null, escalated: false, resolvedAt: NOW };
    assert.deepEqual(move.resolve(waiting, NOW), { status: 'closed', handoffState: 'bot_active', resolution: 'resolved', resolvedByAi: false, ...ended });
    assert.deepEqual(move.closeByVisitor(waiting, NOW), { status: 'closed', handoffState: 'bot_active', resolution: null, resolvedByAi: false, ...ended });
    assert.deepEqual(move.closeByVisitor(stateOf('bot/bot_active'), NOW, true), { status: 'closed', handoffState: 'bot_active', resolution: null, resolvedByAi: true, ...ended });
  });

  it('reopen and release clear the assignment, the wait and the escalation; takeover clears a resolution', () => {
    const cleared = { assignedUserId: null, handoffRequestedAt: null, escalated: false };
    assert.deepEqual(move.reopenByAgent(stateOf('closed/bot_active')), { status: 'bot', handoffState: 'bot_active', resolution: null, resolvedAt: null, resolvedByAi: false, ...cleared });
    assert.deepEqual(move.release(stateOf('agent/human_connected')), { status: 'bot', handoffState: 'bot_active', ...cleared });
    assert.deepEqual(move.takeOver(stateOf('closed/bot_active'), HOLDER), { status: 'agent', handoffState: 'human_connected', assignedUserId: HOLDER, resolution: null, resolvedAt: null, resolvedByAi: false });
  });

  it('waitRemaining counts down the first-response target while a handoff waits, never below 0', () => {
    const waiting = stateOf('bot/handoff_pending'); // asked 60 s ago
    assert.equal(move.waitRemaining(waiting, 300, NOW), 240);
    assert.equal(move.waitRemaining(waiting, 30, NOW), 0);
    assert.equal(move.waitRemaining(stateOf('bot/bot_active'), 300, NOW), null);
    assert.equal(move.waitRemaining(stateOf('agent/human_connected'), 300, NOW), null);
  });
});
