-- Built-in plans, so a workspace can be created before any seed defines its own.
INSERT INTO plans (code, name, monthly_message_limit, chatbot_limit, agent_seats) VALUES
  ('free', 'Free', 500, 1, 1),
  ('starter', 'Starter', 5000, 3, 3),
  ('pro', 'Pro', 50000, 10, 10),
  ('enterprise', 'Enterprise', NULL, 100, 100)
ON CONFLICT (code) DO NOTHING;

-- Seeded tokens may be a bare string without the `<id>|` prefix; they are found by hash.
CREATE INDEX access_tokens_secret_hash_idx ON access_tokens (secret_hash);
