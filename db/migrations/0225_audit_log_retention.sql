-- Retention (domain/audit/prune_audit_log.ts) deletes the oldest rows of every
-- workspace at once: by time alone, which the workspace-first index cannot serve.
CREATE INDEX audit_log_occurred_idx ON audit_log (occurred_at, id);
