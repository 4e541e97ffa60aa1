/** Visitors, their page views, and conversations with their messages and events. */
export const conversationsSql = `
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
`;
