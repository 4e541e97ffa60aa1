/** Workspaces, their users and the access tokens that open the API surfaces. */
export const accountsSql = `
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
`;
