-- The audit log: one row per security-relevant action, written in the same
-- transaction as the action (domain/audit/record_audit.ts). No secret is ever
-- stored here: `details` holds public ids, names and counts only.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  -- Null only for a failed sign-in with an address no workspace knows.
  workspace_id bigint REFERENCES workspaces(id) ON DELETE CASCADE,
  occurred_at timestamptz NOT NULL,
  -- Who: a user (kept by label when the user is later removed), a token, or the system.
  actor_user_id bigint REFERENCES users(id) ON DELETE SET NULL,
  actor_token_id bigint,
  actor_label text NOT NULL,
  ip text,
  action text NOT NULL,
  -- On which record, by its public id (a bot's public id, an e-mail, a token id...).
  target_type text,
  target_id text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_workspace_time_idx ON audit_log (workspace_id, occurred_at DESC, id DESC);
