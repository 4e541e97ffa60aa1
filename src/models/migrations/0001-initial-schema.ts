import type { Migration } from './types';

/**
 * The whole data model of SPEC.md. Every tenant table carries company_id; hot queries have indexes:
 * the inbox (company, status, last activity), the v1 conversation list (chatbot, last activity),
 * retrieval (GIN over a generated tsvector), the usage ledger (company, month).
 */
export const initialSchema: Migration = {
  name: '0001-initial-schema',
  async up({ context: db }) {
    await db.query(`
      CREATE TABLE companies (
        id serial PRIMARY KEY,
        name varchar(120) NOT NULL,
        slug varchar(140) NOT NULL UNIQUE,
        plan varchar(20) NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'starter', 'pro', 'enterprise')),
        portal_enabled boolean NOT NULL DEFAULT false,
        suspended_at timestamptz,
        brand jsonb NOT NULL DEFAULT '{}',
        first_response_target_seconds integer NOT NULL DEFAULT 300 CHECK (first_response_target_seconds > 0),
        settings jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE users (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        name varchar(120) NOT NULL,
        email varchar(255) NOT NULL,
        password_hash text NOT NULL,
        role varchar(20) NOT NULL CHECK (role IN ('owner', 'admin', 'agent', 'viewer')),
        avatar_url text,
        timezone varchar(64),
        suspended_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- Sign-in is by email alone, so an address belongs to one user platform-wide.
      CREATE UNIQUE INDEX users_email_unique ON users (lower(email));
      CREATE INDEX users_company ON users (company_id);

      CREATE TABLE access_tokens (
        id bigserial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        name varchar(120) NOT NULL,
        ability varchar(20) NOT NULL CHECK (ability IN ('api', 'portal', 'agent')),
        token_hash char(64) NOT NULL,
        device_name varchar(120),
        last_used_at timestamptz,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX access_tokens_user_ability ON access_tokens (user_id, ability) WHERE revoked_at IS NULL;

      CREATE TABLE chatbots (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        public_key varchar(64) NOT NULL UNIQUE,
        name varchar(120) NOT NULL,
        role varchar(120) NOT NULL DEFAULT 'Support assistant',
        provider varchar(20) NOT NULL,
        model varchar(120) NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        persona text NOT NULL DEFAULT '',
        instructions text NOT NULL DEFAULT '',
        welcome_message varchar(300) NOT NULL,
        branding jsonb NOT NULL DEFAULT '{}',
        prechat jsonb NOT NULL DEFAULT '{}',
        identity_secret_encrypted text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX chatbots_company ON chatbots (company_id, created_at DESC);

      CREATE TABLE knowledge_sources (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        chatbot_id integer NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
        parent_id integer REFERENCES knowledge_sources(id) ON DELETE CASCADE,
        type varchar(10) NOT NULL CHECK (type IN ('text', 'qa', 'url', 'page')),
        title varchar(255) NOT NULL,
        source_url varchar(2048),
        content text,
        question text,
        answer text,
        file_path text,
        status varchar(12) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'ready', 'failed')),
        failure_reason text,
        chunk_count integer NOT NULL DEFAULT 0,
        indexed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX knowledge_sources_chatbot ON knowledge_sources (chatbot_id, created_at DESC) WHERE parent_id IS NULL;
      CREATE INDEX knowledge_sources_parent ON knowledge_sources (parent_id) WHERE parent_id IS NOT NULL;

      CREATE TABLE knowledge_chunks (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        chatbot_id integer NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
        source_id integer NOT NULL REFERENCES knowledge_sources(id) ON DELETE CASCADE,
        position integer NOT NULL,
        title varchar(255) NOT NULL DEFAULT '',
        url varchar(2048),
        content text NOT NULL,
        search tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', content), 'B')
        ) STORED,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX knowledge_chunks_search ON knowledge_chunks USING gin (search);
      CREATE INDEX knowledge_chunks_source ON knowledge_chunks (source_id, position);
      CREATE INDEX knowledge_chunks_chatbot ON knowledge_chunks (chatbot_id);

      CREATE TABLE visitors (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        chatbot_id integer REFERENCES chatbots(id) ON DELETE SET NULL,
        visitor_key varchar(100) NOT NULL,
        name varchar(255),
        email varchar(255),
        phone varchar(64),
        page varchar(2048),
        title varchar(500),
        referrer varchar(2048),
        entry_page varchar(2048),
        country char(2),
        device varchar(40),
        browser varchar(60),
        os varchar(60),
        locale varchar(35),
        timezone varchar(64),
        user_agent varchar(1000),
        page_views integer NOT NULL DEFAULT 0,
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (company_id, visitor_key)
      );
      CREATE INDEX visitors_recent ON visitors (company_id, last_seen_at DESC);

      CREATE TABLE page_views (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        visitor_id bigint NOT NULL REFERENCES visitors(id) ON DELETE CASCADE,
        url varchar(2048) NOT NULL,
        title varchar(500),
        referrer varchar(2048),
        viewed_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX page_views_visitor ON page_views (visitor_id, viewed_at);

      CREATE TABLE conversations (
        id bigserial PRIMARY KEY,
        public_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        chatbot_id integer NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
        visitor_key varchar(100) NOT NULL,
        channel varchar(20) NOT NULL DEFAULT 'widget',
        status varchar(10) NOT NULL DEFAULT 'bot' CHECK (status IN ('bot', 'agent', 'closed')),
        handoff_state varchar(20) NOT NULL DEFAULT 'bot_active'
          CHECK (handoff_state IN ('bot_active', 'handoff_pending', 'human_connected')),
        escalated boolean NOT NULL DEFAULT false,
        resolution varchar(20),
        resolved_at timestamptz,
        resolved_by_ai boolean NOT NULL DEFAULT false,
        assigned_user_id integer REFERENCES users(id) ON DELETE SET NULL,
        handoff_requested_at timestamptz,
        sla_breached_at timestamptz,
        visitor_name varchar(255),
        visitor_email varchar(255),
        visitor_phone varchar(64),
        identity jsonb,
        meta jsonb NOT NULL DEFAULT '{}',
        prechat jsonb NOT NULL DEFAULT '[]',
        locale varchar(35),
        detected_language varchar(35),
        summary text,
        summary_at timestamptz,
        intent varchar(120),
        revenue_cents bigint,
        revenue_currency char(3),
        routed_by varchar(40) NOT NULL DEFAULT 'ai',
        blocked boolean NOT NULL DEFAULT false,
        abuse_strikes integer NOT NULL DEFAULT 0,
        unread_count integer NOT NULL DEFAULT 0,
        message_count integer NOT NULL DEFAULT 0,
        last_message_preview varchar(200),
        -- Realtime sequence and optimistic version: every actor write bumps version under its shard epoch.
        seq bigint NOT NULL DEFAULT 0,
        version integer NOT NULL DEFAULT 0,
        last_message_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX conversations_inbox ON conversations (company_id, status, last_message_at DESC);
      CREATE INDEX conversations_by_chatbot ON conversations (chatbot_id, last_message_at DESC, id DESC);
      CREATE INDEX conversations_by_visitor ON conversations (chatbot_id, visitor_key, created_at DESC);
      CREATE INDEX conversations_unread ON conversations (company_id) WHERE unread_count > 0 AND status <> 'closed';

      CREATE TABLE messages (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        role varchar(10) NOT NULL CHECK (role IN ('visitor', 'assistant', 'agent', 'system')),
        content text NOT NULL,
        author_user_id integer REFERENCES users(id) ON DELETE SET NULL,
        reply_to_id bigint REFERENCES messages(id) ON DELETE SET NULL,
        client_id varchar(64),
        provider varchar(20),
        model varchar(120),
        tokens_in integer,
        tokens_out integer,
        sources jsonb,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX messages_conversation ON messages (conversation_id, id);
      -- An agent reply's client_id dedupes retries; an AI reply answers one visitor message at most once.
      CREATE UNIQUE INDEX messages_client_id ON messages (conversation_id, client_id) WHERE client_id IS NOT NULL;
      CREATE UNIQUE INDEX messages_one_ai_answer ON messages (reply_to_id) WHERE role = 'assistant';
      CREATE INDEX messages_undelivered ON messages (conversation_id) WHERE delivered_at IS NULL AND role IN ('agent', 'system');

      CREATE TABLE conversation_events (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        type varchar(30) NOT NULL,
        source varchar(10) NOT NULL CHECK (source IN ('visitor', 'agent', 'ai', 'system')),
        user_id integer REFERENCES users(id) ON DELETE SET NULL,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX conversation_events_conversation ON conversation_events (conversation_id, id);

      CREATE TABLE tags (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        name varchar(60) NOT NULL,
        color varchar(9) NOT NULL DEFAULT '#6b7280',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX tags_company_name ON tags (company_id, lower(name));

      CREATE TABLE conversation_tags (
        conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        tag_id integer NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        source varchar(10) NOT NULL DEFAULT 'agent' CHECK (source IN ('agent', 'ai')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (conversation_id, tag_id)
      );

      CREATE TABLE tag_suggestions (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        tag_id integer NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
        confidence real NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        reason varchar(500) NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (conversation_id, tag_id)
      );

      CREATE TABLE canned_replies (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        user_id integer REFERENCES users(id) ON DELETE CASCADE,
        title varchar(120) NOT NULL,
        shortcut varchar(40) NOT NULL,
        body text NOT NULL,
        use_count integer NOT NULL DEFAULT 0,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX canned_replies_company ON canned_replies (company_id, use_count DESC);

      CREATE TABLE notes (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        user_id integer REFERENCES users(id) ON DELETE SET NULL,
        body varchar(4000) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX notes_conversation ON notes (conversation_id, id);

      CREATE TABLE leads (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        conversation_id bigint REFERENCES conversations(id) ON DELETE SET NULL UNIQUE,
        name varchar(255),
        email varchar(255),
        phone varchar(64),
        status varchar(12) NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'contacted', 'won', 'lost')),
        source varchar(20) NOT NULL DEFAULT 'chat',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE provider_keys (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        provider varchar(20) NOT NULL,
        key_encrypted text NOT NULL,
        last_four varchar(4) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (company_id, provider)
      );

      CREATE TABLE integrations (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        kind varchar(20) NOT NULL CHECK (kind IN ('shopify', 'stripe')),
        settings jsonb NOT NULL DEFAULT '{}',
        secret_encrypted text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (company_id, kind)
      );

      -- Append-only ledger of AI calls: analytics and the monthly allowance are sums over it.
      CREATE TABLE usage_records (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        chatbot_id integer REFERENCES chatbots(id) ON DELETE SET NULL,
        conversation_id bigint REFERENCES conversations(id) ON DELETE SET NULL,
        user_id integer REFERENCES users(id) ON DELETE SET NULL,
        kind varchar(10) NOT NULL CHECK (kind IN ('reply', 'suggest', 'enhance', 'summary', 'tagging')),
        provider varchar(20) NOT NULL,
        model varchar(120) NOT NULL,
        tokens_in integer NOT NULL DEFAULT 0,
        tokens_out integer NOT NULL DEFAULT 0,
        cost_micro_cents bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX usage_records_company_time ON usage_records (company_id, created_at);

      CREATE TABLE ai_suggestions (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        user_id integer REFERENCES users(id) ON DELETE SET NULL,
        suggestion text,
        outcome varchar(12) CHECK (outcome IN ('generated', 'inserted', 'edited', 'dismissed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE push_subscriptions (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        endpoint varchar(2048) NOT NULL UNIQUE,
        p256dh varchar(255) NOT NULL,
        auth varchar(255) NOT NULL,
        device_name varchar(120),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

      CREATE TABLE notification_preferences (
        user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        push_enabled boolean NOT NULL DEFAULT true,
        sound_enabled boolean NOT NULL DEFAULT true,
        vibrate_enabled boolean NOT NULL DEFAULT true,
        email_enabled boolean NOT NULL DEFAULT false,
        events jsonb NOT NULL DEFAULT '{}',
        sound_pack varchar(24) NOT NULL DEFAULT 'default',
        volume integer NOT NULL DEFAULT 80 CHECK (volume BETWEEN 0 AND 100),
        quiet_hours_start char(5),
        quiet_hours_end char(5),
        quiet_hours_tz varchar(64),
        dnd_until timestamptz,
        chatbot_filter integer[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      -- Actor shard ownership: each lease acquisition bumps the epoch; writes from an older epoch are refused.
      CREATE TABLE shard_fences (
        shard integer PRIMARY KEY CHECK (shard >= 0),
        epoch bigint NOT NULL DEFAULT 0,
        owner varchar(200),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  },
  async down({ context: db }) {
    await db.query(`
      DROP TABLE IF EXISTS shard_fences, notification_preferences, push_subscriptions, ai_suggestions,
        usage_records, integrations, provider_keys, leads, notes, canned_replies, tag_suggestions,
        conversation_tags, tags, conversation_events, messages, conversations, page_views, visitors,
        knowledge_chunks, knowledge_sources, chatbots, access_tokens, users, companies CASCADE;
    `);
  },
};
