-- A webhook event's conversation as it was when the event was recorded
-- (docs/webhooks.md): captured by the recording statement itself, inside the
-- action's transaction for the outbox events, so a payload rendered later (a
-- retry, another endpoint, the embedded database's paced delivery) still
-- describes the moment of the event, not the first attempt. NULL on events
-- recorded before this migration, or by an instance still on the previous
-- version during a rolling upgrade: those are rendered from the live
-- conversation at their first attempt, as before. No backfill: it would
-- capture the same live state, only sooner.
ALTER TABLE webhook_events ADD COLUMN conversation jsonb;
