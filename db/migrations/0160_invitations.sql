-- Invitations to join a workspace (the dashboard's Team screen): a single-use
-- link whose secret is kept only as SHA-256, valid 7 days.
CREATE TABLE invitations (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  email text NOT NULL,                       -- lower-cased
  role text NOT NULL CHECK (role IN ('owner', 'administrator', 'agent', 'viewer')),
  secret_hash text NOT NULL UNIQUE,
  invited_by bigint REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at timestamptz
);
-- One invitation still open per address and workspace.
CREATE UNIQUE INDEX invitations_open_idx ON invitations (workspace_id, email)
  WHERE accepted_at IS NULL AND revoked_at IS NULL;
