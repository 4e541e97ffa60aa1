/** Provider keys and integration secrets (sealed under APP_KEY), the usage ledger, AI suggestions. */
export const aiSql = `
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
`;
