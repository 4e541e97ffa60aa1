/** Push subscriptions, notification preferences and actor shard fences. */
export const operationsSql = `
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
`;
