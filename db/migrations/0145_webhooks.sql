-- Outbound webhooks (docs/webhooks.md): endpoints per workspace, one event row
-- per domain event a subscribed endpoint wants (the outbox), one delivery row
-- per event and endpoint (the durable job, leased), and every attempt logged.

-- A receiver's URL and what it subscribes to. Secrets are AES-GCM encrypted
-- under APP_KEY (they must be usable to sign, so they cannot be hashed); after
-- a rotation the previous secret keeps signing until previous_expires_at.
CREATE TABLE webhook_endpoints (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  events text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  secret_encrypted text NOT NULL,
  previous_secret_encrypted text,
  previous_expires_at timestamptz,
  -- The first failed attempt since the last success: a day of failure disables.
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_workspace_idx ON webhook_endpoints (workspace_id, id);

-- One domain event some endpoint subscribed to. dedupe_key is the domain
-- event's id: every instance sees every event and tries to record it, the
-- first wins. body is the JSON sent, rendered once so every attempt and every
-- redelivery sends the same bytes under the same webhook-id (public_id).
CREATE TABLE webhook_events (
  id bigserial PRIMARY KEY,
  public_id text NOT NULL UNIQUE,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  type text NOT NULL,
  dedupe_key text NOT NULL UNIQUE,
  source jsonb NOT NULL,
  body text,
  created_at timestamptz NOT NULL
);

-- The durable job: one per event and endpoint. A worker claims it with a
-- lease (locked_until); a dead worker's lease runs out and another claims it.
-- ordering_key (the conversation) keeps one endpoint's events of one
-- conversation in order: a later one waits while an earlier one is pending.
CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  event_id bigint NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  endpoint_id bigint NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  ordering_key text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  -- Retries stop a day (WEBHOOK_RETRY_WINDOW_SECONDS) after this.
  window_started_at timestamptz NOT NULL,
  locked_by text,
  locked_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (endpoint_id, ordering_key, event_id)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

-- Every attempt: what came back and how long it took. Kept 30 days.
CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  response_excerpt text,
  error text,
  outcome text NOT NULL CHECK (outcome IN ('succeeded', 'retry', 'failed'))
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);
CREATE INDEX webhook_attempts_time_idx ON webhook_attempts (attempted_at);

-- How far the recovery sweep has read the messages and conversations tables:
-- a message or conversation committed by an instance that died before it
-- recorded the event is found here and recorded then (docs/webhooks.md).
CREATE TABLE webhook_sweep_cursors (
  source text PRIMARY KEY,
  last_id bigint NOT NULL
);
