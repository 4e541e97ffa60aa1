/** What agents work with: tags, AI tag suggestions, canned replies, notes and leads. */
export const catalogueSql = `
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
`;
