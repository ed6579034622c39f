-- A push subscription's keys (p256dh, auth) are kept encrypted under APP_KEY
-- (AES-GCM, like provider keys and identity secrets): with them anyone could
-- read the alerts sent to an agent's device. SQL cannot encrypt, so existing
-- plaintext moves aside to the legacy columns; the server's start encrypts
-- each pair into keys_ciphertext and empties them
-- (domain/notifications/push_keys.ts). Nothing reads the legacy columns otherwise.
ALTER TABLE push_subscriptions RENAME COLUMN p256dh TO legacy_p256dh;
ALTER TABLE push_subscriptions RENAME COLUMN auth TO legacy_auth;
ALTER TABLE push_subscriptions ALTER COLUMN legacy_p256dh DROP NOT NULL;
ALTER TABLE push_subscriptions ALTER COLUMN legacy_auth DROP NOT NULL;
ALTER TABLE push_subscriptions ADD COLUMN keys_ciphertext text;
