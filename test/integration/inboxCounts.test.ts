import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { Conversation, User } from '../../src/models';
import { GROUP_SQL } from '../../src/domain/inbox/groups';
import { inboxTotals, type InboxTotals } from '../../src/domain/inbox/listInbox';
import { inboxCountsAtCommit } from '../../src/models/migrations/0022-inbox-counts-at-commit';
import * as make from '../support/factories';

/**
 * `inbox_counts` (migration 0009) is kept by a trigger on every write of `conversations`; these
 * tests hold it against a full recount of the workspace after every kind of write, alone and at once.
 */

/** The counts as the inbox computed them before 0009: one pass over every conversation. */
async function recount(companyId: number, userId: number): Promise<InboxTotals> {
  const [row] = await Conversation.sequelize!.query<Record<string, string>>(
    `SELECT count(*) FILTER (WHERE g <> 'resolved') AS "all",
            count(*) FILTER (WHERE g = 'waiting') AS waiting, count(*) FILTER (WHERE g = 'mine') AS mine,
            count(*) FILTER (WHERE g = 'team') AS team, count(*) FILTER (WHERE g = 'ai') AS ai,
            count(*) FILTER (WHERE g = 'resolved') AS resolved,
            count(*) FILTER (WHERE g <> 'resolved' AND unread_count > 0) AS unread
       FROM (SELECT ${GROUP_SQL} AS g, c.unread_count FROM conversations c WHERE c.company_id = $1) grouped`,
    { bind: [companyId, userId], type: QueryTypes.SELECT },
  );
  const n = (key: string) => Number(row?.[key] ?? 0);
  return {
    counts: { all: n('all'), ai: n('ai'), human: n('mine') + n('team'), resolved: n('resolved'), unread: n('unread') },
    groups: { waiting: n('waiting'), mine: n('mine'), team: n('team'), ai: n('ai'), resolved: n('resolved') },
  };
}

async function assertCountsExact(companyId: number, agents: User[]): Promise<void> {
  for (const agent of agents) assert.deepEqual(await inboxTotals(companyId, agent.id), await recount(companyId, agent.id), `as user ${agent.id}`);
}

/** Every combination of the columns the groups read, so random moves visit every key. */
const STATES: Array<Partial<Conversation>> = [
  { status: 'bot', handoffState: 'bot_active', escalated: false },
  { status: 'bot', handoffState: 'handoff_pending', escalated: false },
  { status: 'bot', handoffState: 'bot_active', escalated: true },
  { status: 'agent', handoffState: 'human_connected', escalated: false },
  { status: 'agent', handoffState: 'human_connected', escalated: true },
  { status: 'closed', handoffState: 'bot_active', escalated: false },
  { status: 'closed', handoffState: 'human_connected', escalated: true },
];

/** A deterministic sequence, so a failure replays the same moves. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function randomFields(random: () => number, agents: User[]): Partial<Conversation> {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  return { ...pick(STATES), assignedUserId: pick([null, ...agents.map((agent) => agent.id)]), unreadCount: pick([0, 0, 1, 3]) };
}

async function workspaceWithAgents() {
  const { company } = await make.workspace();
  const bot = await make.chatbot(company);
  const agents = [await make.user(company, 'agent'), await make.user(company, 'agent'), await make.user(company, 'admin')];
  return { company, bot, agents };
}

describe('inbox counts kept by every write (inbox_counts)', () => {
  it('equal a full recount after inserts, every kind of update and deletes, for every agent', async () => {
    const { company, bot, agents } = await workspaceWithAgents();
    const random = sequence(20);
    const conversations = await Conversation.bulkCreate(
      Array.from({ length: 30 }, (_, i) => ({ companyId: company.id, chatbotId: bot.id, visitorKey: `v-${i}`, ...randomFields(random, agents) })),
    );
    await assertCountsExact(company.id, agents);
    for (let round = 0; round < 60; round += 1) {
      await conversations[Math.floor(random() * conversations.length)]!.update(randomFields(random, agents));
    }
    await assertCountsExact(company.id, agents);
    // Writes that change nothing counted (a new unread message on an unread conversation) leave the table alone.
    const before = await Conversation.sequelize!.query('SELECT * FROM inbox_counts WHERE company_id = $1 ORDER BY 2, 3, 4, 5, 6', { bind: [company.id], type: QueryTypes.SELECT });
    await Conversation.update({ unreadCount: 7, lastMessagePreview: 'again' }, { where: { companyId: company.id, unreadCount: 3 } });
    await Conversation.update({ unreadCount: 8 }, { where: { companyId: company.id, status: 'closed' } });
    assert.deepEqual(await Conversation.sequelize!.query('SELECT * FROM inbox_counts WHERE company_id = $1 ORDER BY 2, 3, 4, 5, 6', { bind: [company.id], type: QueryTypes.SELECT }), before);
    await Conversation.destroy({ where: { id: conversations.slice(0, 5).map((c) => c.id) } });
    await assertCountsExact(company.id, agents);
  });

  it('follow deletes that cascade: a removed agent (SET NULL), a removed chatbot, a removed workspace', async () => {
    const { company, bot, agents } = await workspaceWithAgents();
    const other = await make.chatbot(company);
    const random = sequence(7);
    await Conversation.bulkCreate(
      Array.from({ length: 40 }, (_, i) => ({ companyId: company.id, chatbotId: i % 2 ? bot.id : other.id, visitorKey: `v-${i}`, ...randomFields(random, agents) })),
    );
    await agents[1]!.destroy();
    await assertCountsExact(company.id, [agents[0]!, agents[2]!]);
    await other.destroy();
    await assertCountsExact(company.id, [agents[0]!]);
    await company.destroy();
    const left = await Conversation.sequelize!.query<{ n: number }>('SELECT n FROM inbox_counts WHERE company_id = $1 AND n <> 0', { bind: [company.id], type: QueryTypes.SELECT });
    assert.deepEqual(left, []);
  });

  it('stay exact under many concurrent writes moving conversations between the same keys, without deadlocks', async () => {
    const { company, bot, agents } = await workspaceWithAgents();
    const random = sequence(99);
    const conversations = await Conversation.bulkCreate(
      Array.from({ length: 12 }, (_, i) => ({ companyId: company.id, chatbotId: bot.id, visitorKey: `v-${i}`, ...randomFields(random, agents) })),
    );
    // 300 writes at once (as many in flight as the pool holds), each moving one conversation between
    // random keys: every pair of moves shares counter rows, locked in key order by each statement.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 300 }, () =>
        Conversation.update(randomFields(random, agents), { where: { id: conversations[Math.floor(random() * conversations.length)]!.id } }),
      ),
    );
    const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    assert.deepEqual(failures.map((failure) => String(failure.reason)), []);
    await assertCountsExact(company.id, agents);
  });

  it('are locked only while a write commits: a write still open does not hold up another moving a conversation between the same keys (0022, and back)', async () => {
    const { company, bot, agents } = await workspaceWithAgents();
    const sequelize = Conversation.sequelize!;
    const unread = { status: 'bot', handoffState: 'bot_active', escalated: false, assignedUserId: null, unreadCount: 1 } as const;
    const taken = { status: 'agent', handoffState: 'human_connected', assignedUserId: agents[0]!.id, unreadCount: 0 } as const;
    // Two writes of an actor's shape: the first moves its conversation and stays open (its further
    // statements, its commit); the second moves another between the same two keys meanwhile.
    const bothMove = async () => {
      const [first, second] = await Conversation.bulkCreate([0, 1].map((i) => ({ companyId: company.id, chatbotId: bot.id, visitorKey: `v-${i}-${Date.now()}`, ...unread })));
      let moved!: () => void;
      let finish!: () => void;
      const firstMoved = new Promise<void>((resolve) => (moved = resolve));
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const open = sequelize.transaction(async (transaction) => {
        await first!.update(taken, { transaction });
        moved();
        await finished;
      });
      await firstMoved;
      try {
        await sequelize.transaction(async (transaction) => {
          await sequelize.query("SET LOCAL lock_timeout = '1s'", { transaction });
          await second!.update(taken, { transaction });
        });
      } finally {
        finish();
        await open;
      }
    };
    await bothMove();
    await assertCountsExact(company.id, agents);
    // The check can fail: with the trigger fired at each statement (0009), the second waits for the first's commit.
    await inboxCountsAtCommit.down!({ name: inboxCountsAtCommit.name, context: sequelize });
    try {
      await assert.rejects(bothMove(), /lock timeout/);
    } finally {
      await inboxCountsAtCommit.up({ name: inboxCountsAtCommit.name, context: sequelize });
    }
    await bothMove();
    await assertCountsExact(company.id, agents);
  });

  it('are emptied with the table by TRUNCATE (rolled back here)', async () => {
    const { company, bot, agents } = await workspaceWithAgents();
    await Conversation.bulkCreate([{ companyId: company.id, chatbotId: bot.id, visitorKey: 'v', ...randomFields(sequence(1), agents) }]);
    await Conversation.sequelize!.transaction(async (transaction) => {
      await Conversation.sequelize!.query('TRUNCATE conversations CASCADE', { transaction });
      const [row] = await Conversation.sequelize!.query<{ n: string }>('SELECT count(*) AS n FROM inbox_counts', { transaction, type: QueryTypes.SELECT });
      assert.equal(Number(row!.n), 0);
      throw new RollBack();
    }).catch((error: unknown) => {
      if (!(error instanceof RollBack)) throw error;
    });
    await assertCountsExact(company.id, agents);
  });
});

class RollBack extends Error {}
