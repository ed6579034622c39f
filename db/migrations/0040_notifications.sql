-- Agent notifications: push subscriptions per device, per-agent preferences,
-- the workspace's waiting-time threshold, SLA breaches raised once, and the
-- e-mail alerts waiting to be sent in one batch.

-- A browser or app's push subscription. The endpoint is globally unique (the
-- push service issued it to one browser), so registering it again updates the
-- row. token_id ties it to the agent token that registered it: logging out of
-- that device removes its subscriptions.
CREATE TABLE push_subscriptions (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_id bigint REFERENCES access_tokens(id) ON DELETE CASCADE,
  endpoint text NOT NULL UNIQUE,
  p256dh text NOT NULL,
  auth text NOT NULL,
  device_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_subscriptions_user_idx ON push_subscriptions (user_id);
CREATE INDEX push_subscriptions_token_idx ON push_subscriptions (token_id);

-- One row per agent who changed anything; absent fields take the documented
-- defaults (domain/notifications/preferences.ts). `settings` holds what the
-- app sent, already validated; dnd_until is a time, not a duration.
CREATE TABLE notification_preferences (
  user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  dnd_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Minutes a conversation may wait for a human before agents get an
-- sla_breach alert; NULL uses the server's SLA_BREACH_MINUTES.
ALTER TABLE workspaces ADD COLUMN sla_breach_minutes integer
  CHECK (sla_breach_minutes IS NULL OR sla_breach_minutes BETWEEN 1 AND 10080);

-- A breach is one conversation's one wait (keyed by when the wait began), so
-- the scheduled check raises it once however many instances run the check.
CREATE TABLE sla_breaches (
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  waiting_since timestamptz NOT NULL,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, waiting_since)
);
-- The check scans the conversations waiting for a human, a small set.
CREATE INDEX conversations_handoff_pending_idx ON conversations (handoff_requested_at)
  WHERE handoff_state = 'handoff_pending';

-- Alerts waiting for the agent's next e-mail: one mail carries them all.
CREATE TABLE notification_email_items (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  conversation_id uuid,
  kind text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  url text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_email_items_user_idx ON notification_email_items (user_id, id);
