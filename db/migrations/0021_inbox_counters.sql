-- The inbox counts every section on every call. Measured on 100,000
-- conversations (docs/BENCHMARKS.md), two parts of that cost did not belong
-- there: counting the resolved conversations (a scan that grows with the
-- workspace's history), and joining an agent's read markers to the open set.
-- The first is a counter kept by a trigger, so that no code path that closes
-- or reopens a conversation can forget it; the second a column on the row.

-- Resolved (closed) conversations per workspace, kept by a trigger.
CREATE TABLE workspace_conversation_counts (
  workspace_id bigint PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  closed integer NOT NULL DEFAULT 0
);
INSERT INTO workspace_conversation_counts (workspace_id, closed)
SELECT w.id, (SELECT count(*) FROM conversations c WHERE c.workspace_id = w.id AND c.status = 'closed')
  FROM workspaces w;

-- Who has read a conversation up to its newest visitor message: emptied by
-- the statement that stores a visitor message, joined by an agent who opens or
-- answers it. An agent's unread count then reads the open set's index alone,
-- with no join on read markers (conversation_reads keeps the exact markers for
-- each row's unread number).
ALTER TABLE conversations ADD COLUMN read_by bigint[] NOT NULL DEFAULT '{}';
UPDATE conversations c SET read_by = r.users
  FROM (SELECT r.conversation_id, array_agg(r.user_id) AS users
          FROM conversation_reads r JOIN conversations c ON c.id = r.conversation_id
         WHERE r.last_read_message_id >= COALESCE(c.last_visitor_message_id, 0)
         GROUP BY r.conversation_id) r
 WHERE r.conversation_id = c.id;

-- What the open-set counts read, without touching the table.
CREATE INDEX conversations_open_counts_idx ON conversations (workspace_id, id)
  INCLUDE (status, handoff_state, assigned_user_id, last_visitor_message_id, read_by)
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
