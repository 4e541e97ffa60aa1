import { QueryTypes, type Sequelize } from 'sequelize';
import type { AppContext } from '../../src/context';
import { issueToken } from '../../src/domain/accounts/tokens';
import { createChatbot } from '../../src/domain/chatbots/createChatbot';
import { Company, User } from '../../src/models';
import { benchChatbot } from './corpus';

/**
 * A workspace shaped like a large, long-running help desk, written with bulk SQL (generate_series)
 * because 100,000 conversations through the actors would take an hour: the rows are what the actors
 * would have left behind, with every column the inbox reads filled in.
 */
export interface InboxWorkspace {
  companyId: number;
  chatbotId: number;
  /** The agent whose inbox is measured: an `agent` token, one of `agents` agents. */
  agentId: number;
  token: string;
  /** Open conversations with a thread (messages, events, a visitor with a journey), to open as the active one. */
  openable: string[];
  conversations: number;
}

/** Share of each kind of conversation, in order; the rest are answered by the bot. */
const MIX = { closed: 0.7, agentHeld: 0.06, waiting: 0.015, escalated: 0.005 };
const AGENTS = 30;
const TAGS = 12;
const OPENABLE = 40;

const sql = (db: Sequelize, text: string, bind: unknown[] = []) => db.query(text, { bind, type: QueryTypes.RAW });

/** Deterministic: the same seed gives the same workspace (setseed holds for the session's random()). */
async function seedConversations(db: Sequelize, companyId: number, chatbotIds: number[], agentIds: number[], count: number, seed: number): Promise<void> {
  const { closed, agentHeld, waiting, escalated } = MIX;
  const cuts = [closed, closed + agentHeld, closed + agentHeld + waiting, closed + agentHeld + waiting + escalated];
  await db.transaction(async (transaction) => {
    await db.query(`SELECT setseed(${seed})`, { transaction });
    await db.query(
      `
INSERT INTO conversations (company_id, chatbot_id, visitor_key, channel, status, handoff_state, escalated, resolution, resolved_at,
                           resolved_by_ai, assigned_user_id, handoff_requested_at, visitor_name, visitor_email, locale,
                           unread_count, message_count, last_message_preview, seq, version, last_message_at, created_at, updated_at)
SELECT $1::int, ($2::int[])[1 + (g % array_length($2::int[], 1))], 'v-' || $1::int || '-' || g, CASE WHEN r3 < 0.05 THEN 'api' ELSE 'widget' END,
       CASE kind WHEN 'closed' THEN 'closed' WHEN 'held' THEN 'agent' ELSE 'bot' END,
       CASE kind WHEN 'held' THEN 'human_connected' WHEN 'waiting' THEN 'handoff_pending' WHEN 'escalated' THEN 'handoff_pending' ELSE 'bot_active' END,
       kind = 'escalated',
       CASE WHEN kind = 'closed' AND r2 < 0.8 THEN 'resolved' END,
       CASE WHEN kind = 'closed' THEN at + interval '10 minutes' END,
       kind = 'closed' AND r2 < 0.45,
       CASE WHEN kind = 'held' OR (kind = 'closed' AND r2 > 0.7) THEN ($3::int[])[1 + floor(r4 * array_length($3::int[], 1))::int] END,
       CASE WHEN kind IN ('waiting', 'escalated') THEN at - interval '2 minutes' END,
       CASE WHEN r3 < 0.4 THEN 'Visitor ' || g END,
       CASE WHEN r3 < 0.2 THEN 'visitor' || g || '@example.test' END,
       'en-US',
       CASE WHEN kind <> 'closed' AND r4 < 0.3 THEN 1 + floor(r2 * 5)::int ELSE 0 END,
       2 + floor(r2 * 20)::int,
       'Hi, I ordered item ' || g || ' last week and the parcel still shows as in transit, can you check?',
       6 + floor(r2 * 40)::int, 3, at, at - interval '20 minutes', at
  FROM (SELECT g, r2, r3, r4, kind,
               -- Open conversations are recent; closed ones spread over a quarter.
               now() - CASE WHEN kind = 'closed' THEN r5 * interval '90 days' ELSE r5 * interval '3 days' END AS at
          FROM (SELECT g, random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5 FROM generate_series(1, $4::int) g) r,
               LATERAL (SELECT CASE WHEN r1 < ${cuts[0]} THEN 'closed' WHEN r1 < ${cuts[1]} THEN 'held' WHEN r1 < ${cuts[2]} THEN 'waiting'
                                    WHEN r1 < ${cuts[3]} THEN 'escalated' ELSE 'bot' END AS kind) k) s`,
      { bind: [companyId, chatbotIds, agentIds, count], type: QueryTypes.RAW, transaction },
    );
  });
  // Two lines per conversation (what the list never reads, but the table's size is realistic), a
  // visitor row for one in three (the list joins visitors for presence), tags on ~4%.
  await sql(
    db,
    `INSERT INTO messages (company_id, conversation_id, role, content, created_at)
     SELECT c.company_id, c.id, m.role, m.content, c.last_message_at - m.back
       FROM conversations c,
            LATERAL (VALUES ('visitor', c.last_message_preview, interval '1 minute'),
                            ('assistant', 'Let me look that up for you: tracking shows the parcel left the warehouse yesterday.', interval '0')) m(role, content, back)
      WHERE c.company_id = $1`,
    [companyId],
  );
  await sql(
    db,
    `INSERT INTO visitors (company_id, chatbot_id, visitor_key, name, page, title, country, device, browser, os, page_views, first_seen_at, last_seen_at)
     SELECT company_id, chatbot_id, visitor_key, visitor_name, 'https://shop.example/products/' || (id % 500), 'Product ' || (id % 500), 'DE', 'desktop', 'Chrome', 'Windows',
            1 + (id % 9), created_at, last_message_at + interval '1 minute'
       FROM conversations WHERE company_id = $1 AND id % 3 = 0`,
    [companyId],
  );
  await sql(
    db,
    `INSERT INTO conversation_tags (conversation_id, tag_id, company_id, source)
     SELECT c.id, t.id, c.company_id, CASE WHEN c.id % 2 = 0 THEN 'agent' ELSE 'ai' END
       FROM conversations c
       JOIN LATERAL (SELECT id FROM tags WHERE company_id = c.company_id ORDER BY id OFFSET (c.id % ${TAGS}) LIMIT 1) t ON true
      WHERE c.company_id = $1 AND (c.id % 25 = 0 OR c.id % 97 = 0)`,
    [companyId],
  );
}

/** Agents of a workspace in one statement (never signed in with a password: the hash is a placeholder). */
async function seedAgents(db: Sequelize, companyId: number, count: number): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    `INSERT INTO users (company_id, name, email, password_hash, role)
     SELECT $1::int, 'Agent ' || g, 'bench-agent-' || $1::int || '-' || g || '@example.test', 'bench-no-password', 'agent' FROM generate_series(1, $2::int) g
     RETURNING id`,
    { bind: [companyId, count], type: QueryTypes.SELECT },
  );
  return rows.map((row) => row.id);
}

async function seedTags(db: Sequelize, companyId: number): Promise<void> {
  await sql(
    db,
    `INSERT INTO tags (company_id, name, color)
     SELECT $1::int, (ARRAY['billing','shipping','refund','bug','vip','feedback','returns','sales','urgent','account','warranty','spam'])[g], '#6b7280'
       FROM generate_series(1, ${TAGS}) g`,
    [companyId],
  );
}

/** One workspace with `count` conversations over two chatbots and 30 agents. */
async function seedWorkspace(ctx: AppContext, name: string, count: number, seed: number) {
  const bot = await benchChatbot(ctx, name);
  const db = ctx.db.sequelize;
  const company = await Company.findByPk(bot.companyId);
  if (!company) throw new Error('the bench workspace was not created');
  const second = (await createChatbot(company, { name: `${name} (shop)` }, ctx.secrets)).chatbot;
  const agentIds = await seedAgents(db, bot.companyId, AGENTS);
  await seedTags(db, bot.companyId);
  await seedConversations(db, bot.companyId, [bot.id, second.id], agentIds, count, seed);
  return { bot, agentIds };
}

/**
 * The measured workspace (`conversations` of them) and `others` smaller ones beside it in the same
 * tables, so every query has to find its tenant's rows among others'. Ends with VACUUM ANALYZE, as
 * autovacuum would have long since done on a table this old.
 */
export async function seedInbox(ctx: AppContext, conversations: number, others: { workspaces: number; conversations: number }): Promise<InboxWorkspace> {
  const db = ctx.db.sequelize;
  const { bot, agentIds } = await seedWorkspace(ctx, 'Inbox bench', conversations, 0.42);
  for (let i = 0; i < others.workspaces; i++) await seedWorkspace(ctx, `Inbox neighbour ${i + 1}`, others.conversations, 0.1 + i / 100);

  const agentId = agentIds[0]!;
  const agent = await User.findByPk(agentId);
  if (!agent) throw new Error('the bench agent was not created');
  const { plain } = await issueToken(agent, 'agent');

  // Threads to open: recent open conversations, with a full transcript, events and a journey.
  const openable = await db.query<{ id: number; public_id: string }>(
    `SELECT id, public_id FROM conversations WHERE company_id = $1 AND status <> 'closed' ORDER BY last_message_at DESC OFFSET 5 LIMIT ${OPENABLE}`,
    { bind: [bot.companyId], type: QueryTypes.SELECT },
  );
  const ids = openable.map((row) => row.id);
  await sql(
    db,
    `INSERT INTO messages (company_id, conversation_id, role, content, created_at)
     SELECT $1::int, c, CASE WHEN n % 2 = 0 THEN 'visitor' ELSE 'assistant' END, 'Line ' || n || ' of a longer conversation about an order and its delivery.', now() - (40 - n) * interval '1 minute'
       FROM unnest($2::bigint[]) c, generate_series(1, 30) n`,
    [bot.companyId, ids],
  );
  await sql(
    db,
    `INSERT INTO conversation_events (company_id, conversation_id, type, source, created_at)
     SELECT $1::int, c, e, 'system', now() - interval '30 minutes' FROM unnest($2::bigint[]) c, unnest(ARRAY['created', 'handoff_requested', 'human_connected']) e`,
    [bot.companyId, ids],
  );
  await sql(
    db,
    `INSERT INTO visitors (company_id, chatbot_id, visitor_key, page, page_views, last_seen_at)
     SELECT company_id, chatbot_id, visitor_key, 'https://shop.example/cart', 20, now() FROM conversations WHERE id = ANY($1::bigint[])
     ON CONFLICT (company_id, visitor_key) DO UPDATE SET last_seen_at = now()`,
    [ids],
  );
  await sql(
    db,
    `INSERT INTO page_views (company_id, visitor_id, url, title, viewed_at)
     SELECT v.company_id, v.id, 'https://shop.example/products/' || n, 'Product ' || n, now() - n * interval '1 minute'
       FROM visitors v JOIN conversations c ON c.company_id = v.company_id AND c.visitor_key = v.visitor_key, generate_series(1, 25) n
      WHERE c.id = ANY($1::bigint[])`,
    [ids],
  );
  await sql(db, 'VACUUM ANALYZE');
  return { companyId: bot.companyId, chatbotId: bot.id, agentId, token: plain, openable: openable.map((row) => row.public_id), conversations };
}
