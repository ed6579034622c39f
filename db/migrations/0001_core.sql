-- Core schema: tenants, people, credentials, bots, knowledge, conversations, usage.
-- Every tenant table carries workspace_id so each query can scope by it.

CREATE TABLE plans (
  id bigserial PRIMARY KEY,
  code text NOT NULL UNIQUE,
  name text NOT NULL,
  monthly_message_limit integer,          -- null = unlimited
  chatbot_limit integer NOT NULL DEFAULT 1,
  agent_seats integer NOT NULL DEFAULT 1
);

CREATE TABLE workspaces (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  plan_id bigint NOT NULL REFERENCES plans(id),
  portal_enabled boolean NOT NULL DEFAULT false,
  suspended boolean NOT NULL DEFAULT false,
  identity_secret text,
  brand_name text,
  brand_logo_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  email text NOT NULL UNIQUE,              -- stored lower-cased
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'administrator', 'agent', 'viewer')),
  suspended boolean NOT NULL DEFAULT false,
  avatar_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_workspace_idx ON users (workspace_id);

CREATE TABLE access_tokens (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  ability text NOT NULL CHECK (ability IN ('api', 'portal', 'agent')),
  secret_hash text NOT NULL,               -- hex SHA-256 of the secret part
  device_name text,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX access_tokens_user_idx ON access_tokens (user_id, ability);

CREATE TABLE provider_keys (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  provider text NOT NULL,
  ciphertext text NOT NULL,                -- AES-GCM under APP_KEY, base64(iv || ct)
  last_four text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, provider)
);

CREATE TABLE chatbots (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  public_key text NOT NULL UNIQUE,
  name text NOT NULL,
  role text NOT NULL DEFAULT 'support',
  provider text NOT NULL,
  model text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  persona text NOT NULL DEFAULT '',
  instructions text NOT NULL DEFAULT '',
  welcome_message text,                    -- null = the default welcome message
  branding jsonb NOT NULL DEFAULT '{}'::jsonb,
  language text NOT NULL DEFAULT 'english', -- full-text search configuration
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chatbots_workspace_idx ON chatbots (workspace_id, created_at);

CREATE TABLE knowledge_sources (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  parent_id bigint REFERENCES knowledge_sources(id) ON DELETE CASCADE, -- crawled pages
  type text NOT NULL CHECK (type IN ('text', 'qa', 'url', 'page')),
  title text NOT NULL,
  content text,
  question text,
  answer text,
  source_url text,
  content_hash text,
  status text NOT NULL DEFAULT 'pending',  -- pending, processing, ready, failed
  error text,
  chunk_count integer NOT NULL DEFAULT 0,
  pages_found integer NOT NULL DEFAULT 0,
  pages_indexed integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_sources_bot_idx ON knowledge_sources (chatbot_id, parent_id, created_at);

CREATE TABLE knowledge_chunks (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  source_id bigint NOT NULL REFERENCES knowledge_sources(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  title text NOT NULL DEFAULT '',
  url text,
  content text NOT NULL,
  tsv tsvector NOT NULL
);
CREATE INDEX knowledge_chunks_tsv_idx ON knowledge_chunks USING gin (tsv);
CREATE INDEX knowledge_chunks_bot_idx ON knowledge_chunks (chatbot_id);
CREATE INDEX knowledge_chunks_source_idx ON knowledge_chunks (source_id);

CREATE TABLE conversations (
  id bigserial PRIMARY KEY,
  public_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  visitor_id text NOT NULL,
  channel text NOT NULL DEFAULT 'widget',
  status text NOT NULL DEFAULT 'bot' CHECK (status IN ('bot', 'agent', 'closed')),
  handoff_state text NOT NULL DEFAULT 'bot_active'
    CHECK (handoff_state IN ('bot_active', 'handoff_pending', 'human_connected')),
  handoff_requested_at timestamptz,
  resolution text,
  resolved_at timestamptz,
  resolved_by_ai boolean NOT NULL DEFAULT false,
  assigned_user_id bigint REFERENCES users(id) ON DELETE SET NULL,
  meta jsonb NOT NULL DEFAULT '{}'::jsonb,
  visitor_name text,
  visitor_email text,
  visitor_phone text,
  rating integer,
  rating_comment text,
  last_message_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_bot_activity_idx ON conversations (chatbot_id, last_message_at DESC);
CREATE INDEX conversations_visitor_idx ON conversations (chatbot_id, visitor_id);
CREATE INDEX conversations_workspace_idx ON conversations (workspace_id, last_message_at DESC);

CREATE TABLE messages (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('visitor', 'assistant', 'agent')),
  content text NOT NULL,
  model text,
  tokens_in integer NOT NULL DEFAULT 0,
  tokens_out integer NOT NULL DEFAULT 0,
  cost_micro_cents bigint NOT NULL DEFAULT 0,
  sources jsonb NOT NULL DEFAULT '[]'::jsonb,
  author_user_id bigint REFERENCES users(id) ON DELETE SET NULL,
  client_id text,
  delivered_at timestamptz,               -- agent messages: when the widget received it
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_conversation_idx ON messages (conversation_id, id);
CREATE INDEX messages_workspace_time_idx ON messages (workspace_id, created_at);
CREATE UNIQUE INDEX messages_client_id_idx ON messages (conversation_id, client_id)
  WHERE client_id IS NOT NULL;

-- Messages counted against the plan's monthly quota, one row per workspace and month,
-- incremented with a conditional UPDATE so concurrent requests cannot overshoot.
CREATE TABLE usage_counters (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  month date NOT NULL,
  messages_used integer NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, month)
);

CREATE TABLE tags (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  color text NOT NULL DEFAULT '#6b7280',
  UNIQUE (workspace_id, name)
);

CREATE TABLE conversation_tags (
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  tag_id bigint NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  source text NOT NULL DEFAULT 'manual',
  PRIMARY KEY (conversation_id, tag_id)
);

CREATE TABLE canned_replies (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  owner_user_id bigint REFERENCES users(id) ON DELETE CASCADE, -- null = shared
  title text NOT NULL,
  shortcut text,
  body text NOT NULL,
  use_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, title)
);

-- Visitors seen by the widget heartbeat: presence, current page and journey.
CREATE TABLE visitors (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  visitor_id text NOT NULL,
  page_url text,
  page_title text,
  referrer text,
  entry_page text,
  user_agent text,
  locale text,
  timezone text,
  chat_open boolean NOT NULL DEFAULT false,
  page_views integer NOT NULL DEFAULT 0,
  journey jsonb NOT NULL DEFAULT '[]'::jsonb,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chatbot_id, visitor_id)
);
CREATE INDEX visitors_workspace_seen_idx ON visitors (workspace_id, last_seen_at DESC);

-- Durable background jobs, claimed with FOR UPDATE SKIP LOCKED.
CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  dedupe_key text UNIQUE,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5,
  run_at timestamptz NOT NULL DEFAULT now(),
  locked_by text,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_ready_idx ON jobs (run_at) WHERE status IN ('queued', 'running');
