-- Reports (docs/reports.md): a rating is counted in the period it was given,
-- so the time it was given is kept. Earlier ratings get the best time known:
-- when the conversation was resolved, else its last message.
ALTER TABLE conversations ADD COLUMN rated_at timestamptz;
UPDATE conversations SET rated_at = COALESCE(resolved_at, last_message_at)
 WHERE rating IS NOT NULL;

-- Whether a human wrote in a conversation, and when first after a handoff
-- request: the report's plans showed a scan of every message filtered by
-- role for both (docs/BENCHMARKS.md, "Reports"). Human messages are few.
CREATE INDEX messages_agent_idx ON messages (conversation_id, created_at) WHERE role = 'agent';
