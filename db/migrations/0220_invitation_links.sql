-- Invitation links that cannot get lost: the secret is also kept encrypted
-- under APP_KEY (AES-GCM, like provider keys), so an owner or administrator
-- can copy or resend the link from the Team screen. secret_hash still finds
-- the invitation a link names. Null for invitations made before this column:
-- their link cannot be shown again, only renewed.
ALTER TABLE invitations ADD COLUMN secret_encrypted text;
