/** Chatbots and their knowledge: sources (crawled pages are children of their URL source) and searchable chunks. */
export const chatbotsSql = `
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
`;
