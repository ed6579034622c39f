-- The inbox counts every section on every call. Measured on 100,000
-- conversations (docs/BENCHMARKS.md), two parts of that cost grew with the
-- workspace's history rather than with its open work: counting the resolved
-- conversations, and joining an agent's read markers on conversations long
-- closed. Both are kept small here, by the database itself, so that no code
-- path that changes a status can forget them.

-- Resolved (closed) conversations per workspace, kept by a trigger.
CREATE TABLE workspace_conversation_counts (
  workspace_id bigint PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  closed integer NOT NULL DEFAULT 0
);
INSERT INTO workspace_conversation_counts (workspace_id, closed)
SELECT w.id, (SELECT count(*) FROM conversations c WHERE c.workspace_id = w.id AND c.status = 'closed')
  FROM workspaces w;

-- Read markers say whether their conversation is open, so an agent's unread
-- count reads the markers of open conversations only.
ALTER TABLE conversation_reads ADD COLUMN is_open boolean NOT NULL DEFAULT true;
UPDATE conversation_reads r SET is_open = (c.status <> 'closed')
  FROM conversations c WHERE c.id = r.conversation_id;
CREATE INDEX conversation_reads_open_idx ON conversation_reads (user_id, conversation_id)
  INCLUDE (last_read_message_id) WHERE is_open;

-- What the open-set count reads, without touching the table.
CREATE INDEX conversations_open_counts_idx ON conversations (workspace_id, id)
  INCLUDE (status, handoff_state, assigned_user_id, last_visitor_message_id)
  WHERE status <> 'closed';

CREATE FUNCTION conversations_track_closed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_closed boolean := TG_OP <> 'INSERT' AND OLD.status = 'closed';
  is_closed boolean := TG_OP <> 'DELETE' AND NEW.status = 'closed';
  ws bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.workspace_id ELSE NEW.workspace_id END;
BEGIN
  IF was_closed IS DISTINCT FROM is_closed THEN
    IF is_closed THEN
      INSERT INTO workspace_conversation_counts AS w (workspace_id, closed) VALUES (ws, 1)
      ON CONFLICT (workspace_id) DO UPDATE SET closed = w.closed + 1;
    ELSE
      -- No insert here: a workspace being deleted has already lost its row.
      UPDATE workspace_conversation_counts SET closed = closed - 1 WHERE workspace_id = ws;
    END IF;
    IF TG_OP = 'UPDATE' THEN
      UPDATE conversation_reads SET is_open = NOT is_closed WHERE conversation_id = NEW.id;
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER conversations_track_closed_ins AFTER INSERT ON conversations
  FOR EACH ROW WHEN (NEW.status = 'closed') EXECUTE FUNCTION conversations_track_closed();
CREATE TRIGGER conversations_track_closed_upd AFTER UPDATE OF status ON conversations
  FOR EACH ROW WHEN ((OLD.status = 'closed') IS DISTINCT FROM (NEW.status = 'closed'))
  EXECUTE FUNCTION conversations_track_closed();
CREATE TRIGGER conversations_track_closed_del AFTER DELETE ON conversations
  FOR EACH ROW WHEN (OLD.status = 'closed') EXECUTE FUNCTION conversations_track_closed();
