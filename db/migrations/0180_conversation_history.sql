-- The dashboard's conversation history (docs/dashboard.md, "Conversation history").
-- IF NOT EXISTS: on a large database an operator may build these beforehand
-- with CREATE INDEX CONCURRENTLY under the same names (a plain build holds
-- new messages back while it runs: 3.5 s for 300,000 messages here).
--
-- Full-text search over message contents, in the `simple` configuration: a
-- workspace's bots speak different languages, and one configuration for all
-- finds a word as typed (prefix matching covers plurals and tenses). The
-- expression is the one db/conversation_history.ts queries with.
CREATE INDEX IF NOT EXISTS messages_content_search_idx ON messages USING gin (to_tsvector('simple', content));

-- The history lists and exports newest started first, keyset-paged on
-- (created_at, id); without this a page sorted the workspace's conversations.
CREATE INDEX IF NOT EXISTS conversations_history_idx ON conversations (workspace_id, created_at DESC, id DESC);
