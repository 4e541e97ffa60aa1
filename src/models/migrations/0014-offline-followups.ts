import type { Migration } from './types';

/**
 * The offline email follow-up (docs/routing.md): one row per mail, written before the mail is sent.
 * It carries the agent lines from `first_message_id` to `last_message_id`; the next mail starts after
 * the last, so a line is mailed once; `mail_id` makes the mail's Message-ID, the same on every attempt; `claimed_until` is
 * the sender's lease: a sender that died mid-send is replaced only once its lease has run out, by
 * which time its own send deadline has aborted the SMTP dialogue. A new table, so instant.
 */
export const offlineFollowups: Migration = {
  name: '0014-offline-followups',
  async up({ context: db }) {
    await db.query(`CREATE TABLE IF NOT EXISTS offline_followups (
      id bigserial PRIMARY KEY,
      company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      first_message_id bigint NOT NULL,
      last_message_id bigint NOT NULL,
      recipient varchar(255) NOT NULL,
      mail_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      attempts integer NOT NULL DEFAULT 0,
      claimed_until timestamptz,
      sent_at timestamptz,
      failed_at timestamptz,
      last_error varchar(500),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (conversation_id, last_message_id)
    )`);
  },
  async down({ context: db }) {
    await db.query('DROP TABLE IF EXISTS offline_followups');
  },
};
