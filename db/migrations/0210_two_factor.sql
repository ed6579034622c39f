-- Two-factor sign-in (TOTP, RFC 6238; domain/auth/two_factor/). The secret is
-- stored encrypted under APP_KEY (AES-GCM), never in the clear; recovery codes
-- as SHA-256 hashes only.
ALTER TABLE users
  -- Encrypted base32 secret; set at enrolment start, live once enabled_at is set.
  ADD COLUMN two_factor_secret text,
  ADD COLUMN two_factor_enabled_at timestamptz,
  -- The last TOTP time step accepted: a code is usable once (its step and older are refused).
  ADD COLUMN two_factor_last_step bigint;

CREATE TABLE two_factor_recovery_codes (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz
);
CREATE INDEX two_factor_recovery_codes_user_idx ON two_factor_recovery_codes (user_id);

-- An owner may require two-factor sign-in of every member of the workspace.
ALTER TABLE workspaces ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;
