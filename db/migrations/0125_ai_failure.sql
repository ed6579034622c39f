-- Why the AI could not answer a conversation (no model, no key, provider down): the visitor saw an
-- error, so the conversation waits for a human and the inbox shows this reason. Cleared when the
-- conversation goes back to the AI (release, reopen). Nullable without a default: no table rewrite.
ALTER TABLE conversations ADD COLUMN ai_failure text;
