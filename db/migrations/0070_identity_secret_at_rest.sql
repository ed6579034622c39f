-- A workspace's identity secret is kept encrypted under APP_KEY (AES-GCM, like
-- provider keys). SQL cannot encrypt, so existing plaintext moves aside to
-- legacy_identity_secret; the server's start encrypts each one into
-- identity_secret_ciphertext and empties the legacy column
-- (domain/auth/identity_secret.ts). Nothing reads the legacy column otherwise.
ALTER TABLE workspaces RENAME COLUMN identity_secret TO legacy_identity_secret;
ALTER TABLE workspaces ADD COLUMN identity_secret_ciphertext text;
