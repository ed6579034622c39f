-- Accounts (issue 37): the address a session was last used from, shown in
-- each user's list of signed-in devices, and password reset links.
ALTER TABLE access_tokens ADD COLUMN last_ip text;

-- A reset link's secret is stored only as SHA-256; a link is spent once
-- (used_at) and expires after an hour.
CREATE TABLE password_resets (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  secret_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id);
