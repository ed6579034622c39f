-- The dashboard's Integrations screen: who linked each service and when, and
-- the outcome of its last "test connection" (ok, the sentence shown, when).
-- Storing a new credential clears the check: it judged the old one.
ALTER TABLE workspace_integrations ADD COLUMN linked_by bigint REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE workspace_integrations ADD COLUMN checked_at timestamptz;
ALTER TABLE workspace_integrations ADD COLUMN check_ok boolean;
ALTER TABLE workspace_integrations ADD COLUMN check_message text;
