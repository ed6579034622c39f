-- A visitor message may carry the client's idempotency key (`client_id` on v1
-- and the widget stream, or the Idempotency-Key header). Keys are scoped to the
-- workspace, like an API account's keys elsewhere, so a retry that does not
-- know its conversation yet (a new one's first message) still finds the
-- message it stored, in one probe of this index. Agent replies keep their
-- per-conversation index (messages_client_id_idx).
CREATE UNIQUE INDEX messages_visitor_key_idx ON messages (workspace_id, client_id)
  WHERE role = 'visitor' AND client_id IS NOT NULL;
