import { QueryTypes, type Sequelize } from 'sequelize';

// The follow-up mails' rows (migration 0014): which agent lines are due, the claim written before a
// mail is sent, the sender's lease, and the outcome. Each step is one statement, so two senders (an
// owner that is dying and the one taking over) never both hold a mail.

export interface FollowUpLine {
  id: number;
  content: string;
  at: Date;
}

export interface FollowUpRow {
  id: number;
  recipient: string;
  mailId: string;
  firstMessageId: number;
  lastMessageId: number;
  attempts: number;
  claimedUntil: Date | null;
  sentAt: Date | null;
  failedAt: Date | null;
}

const ROW = `id, recipient, mail_id AS "mailId", first_message_id AS "firstMessageId", last_message_id AS "lastMessageId",
  attempts, claimed_until AS "claimedUntil", sent_at AS "sentAt", failed_at AS "failedAt"`;

const rowOf = (row: FollowUpRow): FollowUpRow => ({ ...row, id: Number(row.id), firstMessageId: Number(row.firstMessageId), lastMessageId: Number(row.lastMessageId) });

/** At most this many lines go in one mail; the rest are the next mail's. */
const LINES_PER_MAIL = 50;

export class FollowUpRecords {
  constructor(private readonly sequelize: Sequelize) {}

  /** The conversation's mail not yet sent nor given up, if any: it goes out before any new one. */
  async pending(conversationId: number): Promise<FollowUpRow | null> {
    const [row] = await this.sequelize.query<FollowUpRow>(
      `SELECT ${ROW} FROM offline_followups WHERE conversation_id = $1 AND sent_at IS NULL AND failed_at IS NULL ORDER BY id LIMIT 1`,
      { bind: [conversationId], type: QueryTypes.SELECT },
    );
    return row ? rowOf(row) : null;
  }

  /**
   * The agent lines the visitor has not received (`delivered_at` is set when a heartbeat hands a line
   * to the widget) and no earlier mail carried, oldest first.
   */
  async unmailedLines(conversationId: number): Promise<FollowUpLine[]> {
    const rows = await this.sequelize.query<{ id: string; content: string; created_at: Date }>(
      `SELECT m.id, m.content, m.created_at FROM messages m
        WHERE m.conversation_id = $1 AND m.role = 'agent' AND m.delivered_at IS NULL
          AND m.id > COALESCE((SELECT max(last_message_id) FROM offline_followups WHERE conversation_id = $1), 0)
        ORDER BY m.id LIMIT ${LINES_PER_MAIL}`,
      { bind: [conversationId], type: QueryTypes.SELECT },
    );
    return rows.map((row) => ({ id: Number(row.id), content: row.content, at: new Date(row.created_at) }));
  }

  /** The lines a mail carries, as they were written (the same on every attempt). */
  async linesOf(conversationId: number, row: FollowUpRow): Promise<FollowUpLine[]> {
    const rows = await this.sequelize.query<{ id: string; content: string; created_at: Date }>(
      `SELECT id, content, created_at FROM messages WHERE conversation_id = $1 AND role = 'agent' AND id BETWEEN $2 AND $3 ORDER BY id`,
      { bind: [conversationId, row.firstMessageId, row.lastMessageId], type: QueryTypes.SELECT },
    );
    return rows.map((line) => ({ id: Number(line.id), content: line.content, at: new Date(line.created_at) }));
  }

  /** Records the mail before anything is sent; the unique (conversation, last line) makes a repeat find the same row. */
  async create(input: { companyId: number; conversationId: number; recipient: string; lines: FollowUpLine[] }): Promise<FollowUpRow> {
    const first = input.lines[0]!.id;
    const last = input.lines.at(-1)!.id;
    await this.sequelize.query(
      `INSERT INTO offline_followups (company_id, conversation_id, first_message_id, last_message_id, recipient)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (conversation_id, last_message_id) DO NOTHING`,
      { bind: [input.companyId, input.conversationId, first, last, input.recipient] },
    );
    const [row] = await this.sequelize.query<FollowUpRow>(`SELECT ${ROW} FROM offline_followups WHERE conversation_id = $1 AND last_message_id = $2`, {
      bind: [input.conversationId, last],
      type: QueryTypes.SELECT,
    });
    return rowOf(row!);
  }

  /**
   * Takes the sender's lease for `leaseMs`: only when the mail is neither sent nor given up and no
   * other sender's lease is running. Null when not taken; the row as it stands then says why.
   */
  async claim(id: number, leaseMs: number): Promise<FollowUpRow | null> {
    const [rows] = (await this.sequelize.query(
      `UPDATE offline_followups SET attempts = attempts + 1, claimed_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 AND sent_at IS NULL AND failed_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
        RETURNING ${ROW}`,
      { bind: [id, leaseMs] },
    )) as [FollowUpRow[], unknown];
    return rows[0] ? rowOf(rows[0]) : null;
  }

  /** How long another sender's lease on this mail still runs, by the database's clock (every node's common one); null when nobody holds it. */
  async leaseLeftMs(id: number): Promise<number | null> {
    const [row] = await this.sequelize.query<{ left: string | null }>(
      `SELECT CASE WHEN sent_at IS NULL AND failed_at IS NULL AND claimed_until > now() THEN ceil(extract(epoch FROM claimed_until - now()) * 1000) END AS "left"
         FROM offline_followups WHERE id = $1`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    return row?.left == null ? null : Number(row.left);
  }

  /** Whether mail `id` was this conversation's (a link names both; a mail of another conversation opens nothing). */
  async belongsTo(id: number, conversationId: number): Promise<boolean> {
    const rows = await this.sequelize.query('SELECT 1 FROM offline_followups WHERE id = $1 AND conversation_id = $2', { bind: [id, conversationId], type: QueryTypes.SELECT });
    return rows.length > 0;
  }

  async markSent(id: number): Promise<void> {
    await this.sequelize.query('UPDATE offline_followups SET sent_at = now(), claimed_until = NULL, last_error = NULL WHERE id = $1', { bind: [id] });
  }

  /** A failed attempt frees the lease at once (the retry is scheduled); `final` gives the mail up. */
  async markFailed(id: number, error: string, final: boolean): Promise<void> {
    await this.sequelize.query(`UPDATE offline_followups SET claimed_until = NULL, last_error = $2, failed_at = CASE WHEN $3 THEN now() END WHERE id = $1`, {
      bind: [id, error.slice(0, 500), final],
    });
  }
}
