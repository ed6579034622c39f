-- The agent inbox: per-agent read markers, the events log, private notes,
-- watchers, blocked visitors, and what the inbox needs to list and count fast.

-- The newest visitor message, kept on the conversation by the statement that
-- stores the message, so "unread for this agent" is one comparison per row
-- instead of a count over messages.
ALTER TABLE conversations ADD COLUMN last_visitor_message_id bigint;
ALTER TABLE conversations ADD COLUMN routed_by text;
UPDATE conversations c SET last_visitor_message_id = m.id
  FROM (SELECT conversation_id, max(id) AS id FROM messages WHERE role = 'visitor'
         GROUP BY conversation_id) m
 WHERE m.conversation_id = c.id;

-- Open conversations are the few that the inbox lists and counts on every
-- call; closed ones are the many that only the resolved section reads.
CREATE INDEX conversations_open_activity_idx ON conversations (workspace_id, last_message_at DESC, id DESC)
  WHERE status <> 'closed';
CREATE INDEX conversations_closed_activity_idx ON conversations (workspace_id, last_message_at DESC, id DESC)
  WHERE status = 'closed';

-- What one agent has read of one conversation.
CREATE TABLE conversation_reads (
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  last_read_message_id bigint NOT NULL DEFAULT 0,
  read_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, conversation_id)
);

-- The conversation's history of ownership changes (human_connected, released, ...).
CREATE TABLE conversation_events (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  type text NOT NULL,
  source text NOT NULL,                     -- agent, visitor, ai, system
  actor_user_id bigint REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_events_conversation_idx ON conversation_events (conversation_id, id);

-- Private notes between agents, never shown to the visitor.
CREATE TABLE conversation_notes (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  author_user_id bigint REFERENCES users(id) ON DELETE SET NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_notes_conversation_idx ON conversation_notes (conversation_id, id);

-- Agents following a conversation they do not own.
CREATE TABLE conversation_watchers (
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, user_id)
);
CREATE INDEX conversation_watchers_user_idx ON conversation_watchers (user_id);

-- Visitors whose widget messages are refused, per workspace.
CREATE TABLE blocked_visitors (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  visitor_id text NOT NULL,
  blocked_by bigint REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, visitor_id)
);

-- Attached tags are found per conversation, and per tag for the catalogue's counts.
CREATE INDEX conversation_tags_tag_idx ON conversation_tags (tag_id);
