-- Agent assistance: AI suggestions and summaries, revenue attributed to a
-- conversation, linked storefront and billing services, and the live list.

-- Every AI call an agent asks for (a suggested reply or a summary), with its
-- tokens and cost, so analytics counts it like any AI call. A suggestion's id
-- is the row's id; its outcome is reported later by the agent's app.
CREATE TABLE ai_assist_calls (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  user_id bigint REFERENCES users(id) ON DELETE SET NULL,
  kind text NOT NULL CHECK (kind IN ('suggestion', 'summary')),
  draft text,                               -- the agent's draft a suggestion improved
  content text,                             -- null: nothing to suggest (no call made)
  model text,
  tokens_in integer NOT NULL DEFAULT 0,
  tokens_out integer NOT NULL DEFAULT 0,
  cost_micro_cents bigint NOT NULL DEFAULT 0,
  outcome text NOT NULL DEFAULT 'generated'
    CHECK (outcome IN ('generated', 'inserted', 'edited', 'dismissed')),
  outcome_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ai_assist_calls_workspace_time_idx ON ai_assist_calls (workspace_id, created_at);

-- The latest summary, with the intent and the catalogue tags it suggested.
ALTER TABLE conversations ADD COLUMN summary text;
ALTER TABLE conversations ADD COLUMN summary_at timestamptz;
ALTER TABLE conversations ADD COLUMN intent text;
ALTER TABLE conversations ADD COLUMN tag_suggestions jsonb NOT NULL DEFAULT '[]'::jsonb;

-- Revenue attributed to a conversation: integer cents of an ISO 4217 currency.
ALTER TABLE conversations ADD COLUMN revenue_cents bigint;
ALTER TABLE conversations ADD COLUMN revenue_currency text;
ALTER TABLE conversations ADD COLUMN revenue_label text;
ALTER TABLE conversations ADD COLUMN revenue_at timestamptz;
CREATE INDEX conversations_revenue_idx ON conversations (workspace_id, revenue_at)
  WHERE revenue_cents IS NOT NULL;

-- Services a workspace links for customer context: `storefront` (a Shopify
-- store) and `billing` (a Stripe account). The credential is encrypted under
-- APP_KEY like provider keys; `account` is the shop domain (billing: null).
CREATE TABLE workspace_integrations (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  service text NOT NULL CHECK (service IN ('storefront', 'billing')),
  account text,
  ciphertext text NOT NULL,
  last_four text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, service)
);

-- Country reported by a trusted proxy's geo header, when there is one, and
-- when the current visit began (a heartbeat after a silence longer than the
-- live list's timeout starts a new one): the live list's time on site.
ALTER TABLE visitors ADD COLUMN country text;
ALTER TABLE visitors ADD COLUMN visit_started_at timestamptz;

-- The live list reads the newest heartbeats in (last_seen_at DESC, visitor_id)
-- order: with the tie-breaker in the index it stops after `limit` rows,
-- instead of sorting every visitor sharing a timestamp. It serves every use
-- of the index it replaces (same leading columns), so heartbeats keep
-- updating one index, not two.
DROP INDEX IF EXISTS visitors_workspace_seen_idx;
CREATE INDEX visitors_workspace_live_idx ON visitors (workspace_id, last_seen_at DESC, visitor_id);
