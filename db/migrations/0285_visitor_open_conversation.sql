-- A visitor's latest open conversation with a bot (the widget's heartbeat, its
-- history without an id, an agent's invitation: db/widget_conversations.ts
-- findLatestOpenConversation, db/invited_conversations.ts) read straight from
-- an index in the order asked for, one entry per answer.
--
-- Without it, once ANALYZE saw a few dozen open conversations per visitor, the
-- planner walked the workspace's open conversations newest first
-- (conversations_open_activity_idx) hoping to meet the visitor's soon, and
-- for a visitor with no recent open conversation read every one of them: the
-- soak's heartbeat lookup went from under 3.4 ms to 10.5 ms mean at 40
-- minutes and 66.9 ms at 55, reading 24,761 rows to return none at 53: it grew with the table
-- (issue 44; docs/BENCHMARKS.md "The p99 after 45 minutes: found").
--
-- IF NOT EXISTS: on a large database an operator may build it beforehand with
-- CREATE INDEX CONCURRENTLY under the same name.
CREATE INDEX IF NOT EXISTS conversations_visitor_open_idx
  ON conversations (chatbot_id, visitor_id, last_message_at DESC, id DESC)
  WHERE status <> 'closed';
