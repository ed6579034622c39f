-- Corrections: an agent or owner marked an AI reply as wrong and wrote the
-- right answer. The answer lives as an ordinary Q&A knowledge source of the
-- bot (indexed and ranked like any other); this row only says that the source
-- is a correction and where it came from. Deleting the source deletes the
-- correction. Retention deleting the conversation (or removing the person)
-- keeps the knowledge and drops only the link; erasure deletes the correction's
-- source first (domain/contacts/erase_contact.ts).
CREATE TABLE knowledge_corrections (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  source_id bigint NOT NULL UNIQUE REFERENCES knowledge_sources(id) ON DELETE CASCADE,
  conversation_id bigint REFERENCES conversations(id) ON DELETE SET NULL,
  message_id bigint REFERENCES messages(id) ON DELETE SET NULL,
  corrected_by bigint REFERENCES users(id) ON DELETE SET NULL,
  -- Name at the time, readable after the person is removed.
  corrected_by_name text NOT NULL,
  created_at timestamptz NOT NULL
);
-- A bot's corrections, newest first.
CREATE INDEX knowledge_corrections_bot_idx ON knowledge_corrections (chatbot_id, id DESC);
-- Foreign keys that SET NULL need an index on the referencing column.
CREATE INDEX knowledge_corrections_conversation_idx ON knowledge_corrections (conversation_id);
CREATE INDEX knowledge_corrections_message_idx ON knowledge_corrections (message_id);
CREATE INDEX knowledge_corrections_user_idx ON knowledge_corrections (corrected_by);
