import type { Migration } from './types';

/**
 * Webhooks (docs/webhooks.md): the endpoints a workspace registered, the events integrators may read
 * (the outbox, written in the same transaction as the conversation change it describes, and the
 * source of the v1 catch-up endpoint), and one delivery per event and webhook.
 *
 * `integration_events` keeps `seq` from the conversation's own event stream, so (conversation_id, seq)
 * is unique and orders them. Deliveries carry the conversation and seq again so that "the oldest
 * undelivered event of this webhook and conversation" is one index read (`webhook_deliveries_chain`),
 * and the due ones are found by `webhook_deliveries_due`; both are partial, over open deliveries only.
 */
export const webhooks: Migration = {
  name: '0010-webhooks',
  async up({ context: db }) {
    await db.query(`
      CREATE TABLE IF NOT EXISTS webhooks (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        url varchar(2000) NOT NULL,
        events text[] NOT NULL,
        description varchar(255),
        secret_encrypted text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        failing_since timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query('CREATE INDEX IF NOT EXISTS webhooks_by_company ON webhooks (company_id) WHERE active');
    await db.query(`
      CREATE TABLE IF NOT EXISTS integration_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        conversation_id bigint REFERENCES conversations(id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        type varchar(40) NOT NULL,
        data json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query('CREATE UNIQUE INDEX IF NOT EXISTS integration_events_by_conversation ON integration_events (conversation_id, seq)');
    await db.query(`
      CREATE TABLE IF NOT EXISTS webhook_deliveries (
        id bigserial PRIMARY KEY,
        webhook_id integer NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES integration_events(id) ON DELETE CASCADE,
        conversation_id bigint REFERENCES conversations(id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'given_up')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        leased_until timestamptz,
        response_status integer,
        response_body text,
        error text,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX IF NOT EXISTS webhook_deliveries_chain ON webhook_deliveries (webhook_id, conversation_id, seq, id) WHERE status IN ('pending', 'failed')`);
    await db.query(`CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'failed')`);
    await db.query('CREATE INDEX IF NOT EXISTS webhook_deliveries_log ON webhook_deliveries (webhook_id, id DESC)');
  },
  async down({ context: db }) {
    await db.query('DROP TABLE IF EXISTS webhook_deliveries');
    await db.query('DROP TABLE IF EXISTS integration_events');
    await db.query('DROP TABLE IF EXISTS webhooks');
  },
};
