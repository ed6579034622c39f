-- Reports at size (issue 40; docs/reports.md "How figures stay exact", the
-- plans in docs/BENCHMARKS.md "Reports"). Nothing here runs on the visitor's
-- path: no trigger fires on a message insert, and no statement of the widget
-- or the AI's reply changes.
--
-- 1. Messages per UTC quarter hour, workspace, bot and author role, with
--    tokens and cost, rolled up by a background job (domain/reports/
--    roll_up_messages.ts) from the messages with an id above a watermark.
--    The report reads the rolled-up rows of its period plus the messages
--    above the watermark (the live tail) in one snapshot, so its figures are
--    exact at every moment. Deleting a message already rolled up takes it
--    away again (the triggers below), under the state row's lock.
-- 2. On each conversation, the facts the report looked up in its messages
--    and events, written by the agents' actions (db/messages.ts,
--    db/conversations.ts, db/conversation_events.ts): its first human
--    message, the first human message at or after its latest handoff
--    request, and whether a person took it (a `human_connected` event).

CREATE TABLE report_message_quarters (
  workspace_id bigint NOT NULL,
  quarter timestamptz NOT NULL,
  chatbot_id bigint NOT NULL,
  role text NOT NULL,
  n bigint NOT NULL,
  tokens bigint NOT NULL,
  cost_micro_cents bigint NOT NULL,
  PRIMARY KEY (workspace_id, quarter, chatbot_id, role)
);
-- No foreign keys: the job would then lock a bot or workspace being deleted
-- while the deletion waits for the job's state lock. A deleted bot's or
-- workspace's rows are brought to zero by the triggers and are never read.

-- One row. Every message with id <= watermark is counted in
-- report_message_quarters; every message with id <= safe_upto has committed
-- or rolled back (no transaction can still add one); pending_upto is the
-- message sequence's value when pending_lockers (the transactions then
-- writing to messages, by virtual transaction id) were read: once they have
-- all ended, safe_upto may move to pending_upto.
CREATE TABLE report_rollup_state (
  id int PRIMARY KEY CHECK (id = 1),
  watermark bigint NOT NULL DEFAULT 0,
  safe_upto bigint NOT NULL DEFAULT 0,
  pending_upto bigint,
  pending_lockers text[] NOT NULL DEFAULT '{}',
  rolled_at timestamptz
);
INSERT INTO report_rollup_state (id) VALUES (1);

-- Conversations with an AI reply at or below the watermark, rolled up by the
-- same rounds: the report's quiet-AI resolution asks it of 20,000
-- conversations a month, and one probe of `messages` each was half that
-- statement's time (docs/BENCHMARKS.md). Above the watermark the report
-- probes the messages themselves (a range of the primary key, usually empty).
CREATE TABLE report_ai_replied (conversation_id bigint PRIMARY KEY);

CREATE FUNCTION report_quarter(t timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN date_bin('15 minutes', t, TIMESTAMPTZ '2000-01-01 00:00:00+00');

-- Concurrency with the job, under READ COMMITTED (the argument, both orders):
-- the job and every deletion lock the one state row FOR UPDATE before they
-- read messages, and hold it to commit.
--  * The job first: the deletion waits at the lock. The job's statements do
--    not see the deletion (uncommitted), so they count those messages and
--    may move the watermark past them. When the deletion gets the lock,
--    FOR UPDATE returns the row as the job committed it (the new
--    watermark), and the deletion's next statement (a new snapshot) sees the
--    messages the job counted: it takes away exactly those with id <= it.
--  * The deletion first: the job waits at the lock until the deletion has
--    committed (or rolled back: its subtraction with it). The job's next
--    statement takes a snapshot after that commit, so the deleted messages
--    are not there to count; the deletion took away only the ones at or
--    below the watermark, which an earlier round had counted.
-- The report reads the watermark, the rolled-up rows and the tail in one
-- snapshot (a REPEATABLE READ transaction), so it sees the job's round and
-- a deletion's subtraction either whole or not at all.

-- A conversation about to be deleted (retention, erasure, a bot's deletion,
-- a workspace's: every path that deletes messages today deletes their
-- conversation): take its rolled-up messages away under the key they were
-- counted with. Its messages then leave by the foreign key's cascade, where
-- report_messages_leaving finds no conversation and leaves them be.
CREATE FUNCTION report_conversation_leaving() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE w bigint;
BEGIN
  SELECT watermark INTO w FROM report_rollup_state WHERE id = 1 FOR UPDATE;
  UPDATE report_message_quarters q
     SET n = q.n - d.n, tokens = q.tokens - d.tokens,
         cost_micro_cents = q.cost_micro_cents - d.cost
    FROM (SELECT m.workspace_id, report_quarter(m.created_at) AS quarter, m.role,
                 count(*) AS n, sum(m.tokens_in + m.tokens_out) AS tokens,
                 sum(m.cost_micro_cents) AS cost
            FROM messages m
           WHERE m.conversation_id = OLD.id AND m.id <= w
           GROUP BY 1, 2, 3) d
   WHERE q.workspace_id = d.workspace_id AND q.quarter = d.quarter
     AND q.chatbot_id = OLD.chatbot_id AND q.role = d.role;
  DELETE FROM report_ai_replied WHERE conversation_id = OLD.id;
  RETURN OLD;
END $$;

-- Messages deleted while their conversation stays (no path does this today;
-- a workspace's deletion may reach messages before their conversations):
-- the same subtraction, and the conversation's reply facts recomputed.
CREATE FUNCTION report_messages_leaving() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE w bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM removed r JOIN conversations c ON c.id = r.conversation_id) THEN
    RETURN NULL;
  END IF;
  SELECT watermark INTO w FROM report_rollup_state WHERE id = 1 FOR UPDATE;
  UPDATE report_message_quarters q
     SET n = q.n - d.n, tokens = q.tokens - d.tokens,
         cost_micro_cents = q.cost_micro_cents - d.cost
    FROM (SELECT r.workspace_id, report_quarter(r.created_at) AS quarter, c.chatbot_id, r.role,
                 count(*) AS n, sum(r.tokens_in + r.tokens_out) AS tokens,
                 sum(r.cost_micro_cents) AS cost
            FROM removed r JOIN conversations c ON c.id = r.conversation_id
           WHERE r.id <= w
           GROUP BY 1, 2, 3, 4) d
   WHERE q.workspace_id = d.workspace_id AND q.quarter = d.quarter
     AND q.chatbot_id = d.chatbot_id AND q.role = d.role;
  DELETE FROM report_ai_replied a
   WHERE a.conversation_id IN (SELECT r.conversation_id FROM removed r
                                WHERE r.role = 'assistant' AND r.id <= w)
     AND NOT EXISTS (SELECT 1 FROM messages m
                      WHERE m.conversation_id = a.conversation_id AND m.role = 'assistant'
                        AND m.id <= w);
  UPDATE conversations c
     SET first_human_reply_at = (SELECT min(m.created_at) FROM messages m
                                  WHERE m.conversation_id = c.id AND m.role = 'agent'),
         first_response_at = (SELECT min(m.created_at) FROM messages m
                               WHERE m.conversation_id = c.id AND m.role = 'agent'
                                 AND m.created_at >= c.handoff_requested_at)
   WHERE c.id IN (SELECT r.conversation_id FROM removed r WHERE r.role = 'agent');
  RETURN NULL;
END $$;

ALTER TABLE conversations ADD COLUMN first_human_reply_at timestamptz;
ALTER TABLE conversations ADD COLUMN first_response_at timestamptz;
ALTER TABLE conversations ADD COLUMN human_connected boolean NOT NULL DEFAULT false;

UPDATE conversations c SET human_connected = true
 WHERE EXISTS (SELECT 1 FROM conversation_events e
                WHERE e.conversation_id = c.id AND e.type = 'human_connected');

UPDATE conversations c SET first_human_reply_at = f.human, first_response_at = f.answer
  FROM (SELECT m.conversation_id AS id, min(m.created_at) AS human,
               min(m.created_at) FILTER (WHERE m.created_at >= k.handoff_requested_at) AS answer
          FROM messages m JOIN conversations k ON k.id = m.conversation_id
         WHERE m.role = 'agent'
         GROUP BY 1) f
 WHERE c.id = f.id;

CREATE TRIGGER conversations_report_leaving BEFORE DELETE ON conversations
  FOR EACH ROW EXECUTE FUNCTION report_conversation_leaving();
CREATE TRIGGER messages_report_leaving AFTER DELETE ON messages
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION report_messages_leaving();

-- What the report still reads row by row, narrowed to the rows it reads
-- (index-only scans once vacuumed). Partial: a conversation enters them when
-- it is resolved, rated or handed off, so the widget's new conversations and
-- the AI's replies in them write none of them.
CREATE INDEX conversations_report_resolved_idx ON conversations (workspace_id, resolved_at)
  INCLUDE (id, created_at, chatbot_id, assigned_user_id, first_human_reply_at)
  WHERE status = 'closed' AND resolution = 'resolved';
CREATE INDEX conversations_report_rated_idx ON conversations (workspace_id, rated_at)
  INCLUDE (chatbot_id, assigned_user_id, rating) WHERE rating IS NOT NULL;
CREATE INDEX conversations_report_handoff_idx ON conversations (workspace_id, handoff_requested_at)
  INCLUDE (id, first_response_at, chatbot_id, assigned_user_id)
  WHERE handoff_requested_at IS NOT NULL;
