-- Reports at size (issue 40, docs/reports.md "How it is computed"; the plans
-- that called for this are in docs/BENCHMARKS.md, "Reports"). What the
-- report used to count from every message of the period, kept exact by
-- triggers in the transaction of each write instead:
--
-- 1. Messages per UTC quarter hour, workspace, bot, the conversation's
--    assigned member (0: nobody) and author role, with tokens and cost.
--    Every time zone's offset is a whole number of quarter hours, so any
--    local hour or day is a whole number of these rows. Kept by: a message
--    inserted (row by row: the widget's hot path is one row) or deleted (one
--    statement-level trigger, grouped per quarter); a message whose
--    counted columns change; a conversation deleted (its messages leave
--    before the cascade, whose own trigger then finds no conversation); a
--    conversation reassigned or moved to another bot (its messages move key).
-- 2. Conversations started per UTC quarter hour, workspace, bot and assigned
--    member, and how many of them were handed off (a handoff request, or a
--    `human_connected` entry in the events log: `human_connected` below).
--    Kept by a conversation inserted, deleted, or changed in any of those.
-- 3. On each conversation, facts the report looked up per conversation in
--    messages: its first AI reply, its first human reply, and the first human
--    reply at or after its latest handoff request (recomputed when the
--    request changes or a message is deleted).

CREATE TABLE report_message_quarters (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  quarter timestamptz NOT NULL,
  chatbot_id bigint NOT NULL,
  assignee_id bigint NOT NULL,
  role text NOT NULL,
  n bigint NOT NULL,
  tokens bigint NOT NULL,
  cost_micro_cents bigint NOT NULL,
  PRIMARY KEY (workspace_id, quarter, chatbot_id, assignee_id, role)
);

CREATE TABLE report_conversation_quarters (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  quarter timestamptz NOT NULL,
  chatbot_id bigint NOT NULL,
  assignee_id bigint NOT NULL,
  conversations bigint NOT NULL,
  handoffs bigint NOT NULL,
  PRIMARY KEY (workspace_id, quarter, chatbot_id, assignee_id)
);

-- Whether the events log holds a `human_connected` entry for the conversation.
ALTER TABLE conversations ADD COLUMN human_connected boolean NOT NULL DEFAULT false;
ALTER TABLE conversations ADD COLUMN first_ai_reply_at timestamptz;
ALTER TABLE conversations ADD COLUMN first_human_reply_at timestamptz;
ALTER TABLE conversations ADD COLUMN first_response_at timestamptz;

CREATE FUNCTION report_quarter(t timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN date_bin('15 minutes', t, TIMESTAMPTZ '2000-01-01 00:00:00+00');

-- Add (sign 1) or take away (sign -1) one conversation's messages under a key.
CREATE FUNCTION report_move_conversation(conv bigint, ws bigint, bot bigint, assignee bigint,
                                         sign int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO report_message_quarters AS q
    (workspace_id, quarter, chatbot_id, assignee_id, role, n, tokens, cost_micro_cents)
  SELECT ws, report_quarter(m.created_at), bot, COALESCE(assignee, 0), m.role,
         sign * count(*), sign * sum(m.tokens_in + m.tokens_out), sign * sum(m.cost_micro_cents)
    FROM messages m WHERE m.conversation_id = conv
   GROUP BY 2, 5
  ON CONFLICT (workspace_id, quarter, chatbot_id, assignee_id, role) DO UPDATE
    SET n = q.n + EXCLUDED.n, tokens = q.tokens + EXCLUDED.tokens,
        cost_micro_cents = q.cost_micro_cents + EXCLUDED.cost_micro_cents;
END $$;

-- The reply facts of some conversations, recomputed from their messages.
CREATE FUNCTION report_refresh_reply_facts(ids bigint[]) RETURNS void LANGUAGE sql AS $$
  UPDATE conversations c SET
    first_ai_reply_at = (SELECT min(m.created_at) FROM messages m
                          WHERE m.conversation_id = c.id AND m.role = 'assistant'),
    first_human_reply_at = (SELECT min(m.created_at) FROM messages m
                             WHERE m.conversation_id = c.id AND m.role = 'agent'),
    first_response_at = (SELECT min(m.created_at) FROM messages m
                          WHERE m.conversation_id = c.id AND m.role = 'agent'
                            AND m.created_at >= c.handoff_requested_at)
   WHERE c.id = ANY(ids)
$$;

-- Row by row: a message insert is one row on the widget's hot path, where a statement trigger's
-- transition table and grouped join cost more than one upsert (bench/report_write_cost_bench.ts).
-- The key is read from the conversation as committed when the trigger runs: every insert path
-- (db/messages.ts, db/first_turn.ts) writes the conversation row in the same statement, so a
-- concurrent reassignment is ordered before or after it by that row's lock, never in between.
CREATE FUNCTION report_message_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE c record;
BEGIN
  SELECT k.workspace_id, k.chatbot_id, k.assigned_user_id, k.handoff_requested_at,
         k.first_ai_reply_at, k.first_human_reply_at, k.first_response_at
    INTO c FROM conversations k WHERE k.id = NEW.conversation_id;
  INSERT INTO report_message_quarters AS q
    (workspace_id, quarter, chatbot_id, assignee_id, role, n, tokens, cost_micro_cents)
  VALUES (c.workspace_id, report_quarter(NEW.created_at), c.chatbot_id,
          COALESCE(c.assigned_user_id, 0), NEW.role, 1, NEW.tokens_in + NEW.tokens_out,
          NEW.cost_micro_cents)
  ON CONFLICT (workspace_id, quarter, chatbot_id, assignee_id, role) DO UPDATE
    SET n = q.n + 1, tokens = q.tokens + EXCLUDED.tokens,
        cost_micro_cents = q.cost_micro_cents + EXCLUDED.cost_micro_cents;
  -- Only a reply earlier than the kept one changes a fact; a visitor's message never does.
  IF NEW.role = 'assistant' AND NEW.created_at < COALESCE(c.first_ai_reply_at, 'infinity') THEN
    UPDATE conversations SET first_ai_reply_at = NEW.created_at WHERE id = NEW.conversation_id;
  ELSIF NEW.role = 'agent' AND (
      NEW.created_at < COALESCE(c.first_human_reply_at, 'infinity') OR
      (NEW.created_at >= c.handoff_requested_at
       AND NEW.created_at < COALESCE(c.first_response_at, 'infinity'))) THEN
    UPDATE conversations
       SET first_human_reply_at = LEAST(first_human_reply_at, NEW.created_at),
           first_response_at = CASE WHEN NEW.created_at >= handoff_requested_at
                                    THEN LEAST(first_response_at, NEW.created_at)
                                    ELSE first_response_at END
     WHERE id = NEW.conversation_id;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION report_messages_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Messages of a deleted conversation were taken away by its own trigger: the
  -- join finds no conversation for them.
  UPDATE report_message_quarters q
     SET n = q.n - d.n, tokens = q.tokens - d.tokens,
         cost_micro_cents = q.cost_micro_cents - d.cost
    FROM (SELECT c.workspace_id, report_quarter(r.created_at) AS quarter, c.chatbot_id,
                 COALESCE(c.assigned_user_id, 0) AS assignee_id, r.role, count(*) AS n,
                 sum(r.tokens_in + r.tokens_out) AS tokens, sum(r.cost_micro_cents) AS cost
            FROM removed r JOIN conversations c ON c.id = r.conversation_id
           GROUP BY 1, 2, 3, 4, 5) d
   WHERE q.workspace_id = d.workspace_id AND q.quarter = d.quarter
     AND q.chatbot_id = d.chatbot_id AND q.assignee_id = d.assignee_id AND q.role = d.role;
  PERFORM report_refresh_reply_facts(ARRAY(
    SELECT DISTINCT r.conversation_id FROM removed r WHERE r.role <> 'visitor'));
  RETURN NULL;
END $$;

-- A message whose counted columns change (none of ours does today): out, then in again.
CREATE FUNCTION report_message_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE c record;
BEGIN
  SELECT * INTO c FROM conversations WHERE id = OLD.conversation_id;
  IF FOUND THEN
    UPDATE report_message_quarters q
       SET n = q.n - 1, tokens = q.tokens - (OLD.tokens_in + OLD.tokens_out),
           cost_micro_cents = q.cost_micro_cents - OLD.cost_micro_cents
     WHERE q.workspace_id = c.workspace_id AND q.quarter = report_quarter(OLD.created_at)
       AND q.chatbot_id = c.chatbot_id AND q.assignee_id = COALESCE(c.assigned_user_id, 0)
       AND q.role = OLD.role;
  END IF;
  SELECT * INTO c FROM conversations WHERE id = NEW.conversation_id;
  INSERT INTO report_message_quarters AS q
    (workspace_id, quarter, chatbot_id, assignee_id, role, n, tokens, cost_micro_cents)
  VALUES (c.workspace_id, report_quarter(NEW.created_at), c.chatbot_id,
          COALESCE(c.assigned_user_id, 0), NEW.role, 1, NEW.tokens_in + NEW.tokens_out,
          NEW.cost_micro_cents)
  ON CONFLICT (workspace_id, quarter, chatbot_id, assignee_id, role) DO UPDATE
    SET n = q.n + 1, tokens = q.tokens + EXCLUDED.tokens,
        cost_micro_cents = q.cost_micro_cents + EXCLUDED.cost_micro_cents;
  PERFORM report_refresh_reply_facts(ARRAY[OLD.conversation_id, NEW.conversation_id]);
  RETURN NULL;
END $$;

CREATE FUNCTION report_conversation_deleting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM report_move_conversation(OLD.id, OLD.workspace_id, OLD.chatbot_id,
                                   OLD.assigned_user_id, -1);
  RETURN OLD;
END $$;

CREATE FUNCTION report_conversation_rekeyed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM report_move_conversation(OLD.id, OLD.workspace_id, OLD.chatbot_id,
                                   OLD.assigned_user_id, -1);
  PERFORM report_move_conversation(NEW.id, NEW.workspace_id, NEW.chatbot_id,
                                   NEW.assigned_user_id, 1);
  RETURN NULL;
END $$;

CREATE FUNCTION report_handoff_requested() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.first_response_at := (SELECT min(m.created_at) FROM messages m
                             WHERE m.conversation_id = NEW.id AND m.role = 'agent'
                               AND m.created_at >= NEW.handoff_requested_at);
  RETURN NEW;
END $$;

-- Conversations counted in (sign 1) or out (-1), grouped: inserts and deletes per statement.
CREATE FUNCTION report_conversations_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO report_conversation_quarters AS q
    (workspace_id, quarter, chatbot_id, assignee_id, conversations, handoffs)
  SELECT a.workspace_id, report_quarter(a.created_at), a.chatbot_id,
         COALESCE(a.assigned_user_id, 0), count(*),
         count(*) FILTER (WHERE a.handoff_requested_at IS NOT NULL OR a.human_connected)
    FROM added a GROUP BY 1, 2, 3, 4
  ON CONFLICT (workspace_id, quarter, chatbot_id, assignee_id) DO UPDATE
    SET conversations = q.conversations + EXCLUDED.conversations,
        handoffs = q.handoffs + EXCLUDED.handoffs;
  RETURN NULL;
END $$;

CREATE FUNCTION report_conversations_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE report_conversation_quarters q
     SET conversations = q.conversations - d.n, handoffs = q.handoffs - d.handoffs
    FROM (SELECT r.workspace_id, report_quarter(r.created_at) AS quarter, r.chatbot_id,
                 COALESCE(r.assigned_user_id, 0) AS assignee_id, count(*) AS n,
                 count(*) FILTER (WHERE r.handoff_requested_at IS NOT NULL
                                     OR r.human_connected) AS handoffs
            FROM removed r GROUP BY 1, 2, 3, 4) d
   WHERE q.workspace_id = d.workspace_id AND q.quarter = d.quarter
     AND q.chatbot_id = d.chatbot_id AND q.assignee_id = d.assignee_id;
  RETURN NULL;
END $$;

-- A conversation whose key or handoff changes: out under the old values, in under the new.
CREATE FUNCTION report_conversation_recounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE report_conversation_quarters q
     SET conversations = q.conversations - 1,
         handoffs = q.handoffs - (OLD.handoff_requested_at IS NOT NULL OR OLD.human_connected)::int
   WHERE q.workspace_id = OLD.workspace_id AND q.quarter = report_quarter(OLD.created_at)
     AND q.chatbot_id = OLD.chatbot_id AND q.assignee_id = COALESCE(OLD.assigned_user_id, 0);
  INSERT INTO report_conversation_quarters AS q
    (workspace_id, quarter, chatbot_id, assignee_id, conversations, handoffs)
  VALUES (NEW.workspace_id, report_quarter(NEW.created_at), NEW.chatbot_id,
          COALESCE(NEW.assigned_user_id, 0), 1,
          (NEW.handoff_requested_at IS NOT NULL OR NEW.human_connected)::int)
  ON CONFLICT (workspace_id, quarter, chatbot_id, assignee_id) DO UPDATE
    SET conversations = q.conversations + 1, handoffs = q.handoffs + EXCLUDED.handoffs;
  RETURN NULL;
END $$;

CREATE FUNCTION report_events_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE conversations c SET human_connected = true
   WHERE c.id IN (SELECT a.conversation_id FROM added a WHERE a.type = 'human_connected')
     AND NOT c.human_connected;
  RETURN NULL;
END $$;

CREATE FUNCTION report_events_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE conversations c
     SET human_connected = EXISTS (SELECT 1 FROM conversation_events e
                                    WHERE e.conversation_id = c.id AND e.type = 'human_connected')
   WHERE c.id IN (SELECT r.conversation_id FROM removed r WHERE r.type = 'human_connected');
  RETURN NULL;
END $$;

-- Backfill, before the triggers exist.
UPDATE conversations c SET human_connected = true
 WHERE EXISTS (SELECT 1 FROM conversation_events e
                WHERE e.conversation_id = c.id AND e.type = 'human_connected');

INSERT INTO report_conversation_quarters
  (workspace_id, quarter, chatbot_id, assignee_id, conversations, handoffs)
SELECT c.workspace_id, report_quarter(c.created_at), c.chatbot_id,
       COALESCE(c.assigned_user_id, 0), count(*),
       count(*) FILTER (WHERE c.handoff_requested_at IS NOT NULL OR c.human_connected)
  FROM conversations c
 GROUP BY 1, 2, 3, 4;

INSERT INTO report_message_quarters
  (workspace_id, quarter, chatbot_id, assignee_id, role, n, tokens, cost_micro_cents)
SELECT c.workspace_id, report_quarter(m.created_at), c.chatbot_id,
       COALESCE(c.assigned_user_id, 0), m.role,
       count(*), sum(m.tokens_in + m.tokens_out), sum(m.cost_micro_cents)
  FROM messages m JOIN conversations c ON c.id = m.conversation_id
 GROUP BY 1, 2, 3, 4, 5;

UPDATE conversations c SET first_ai_reply_at = f.ai, first_human_reply_at = f.human,
                           first_response_at = f.answer
  FROM (SELECT m.conversation_id AS id,
               min(m.created_at) FILTER (WHERE m.role = 'assistant') AS ai,
               min(m.created_at) FILTER (WHERE m.role = 'agent') AS human,
               min(m.created_at) FILTER (WHERE m.role = 'agent'
                                           AND m.created_at >= k.handoff_requested_at) AS answer
          FROM messages m JOIN conversations k ON k.id = m.conversation_id
         WHERE m.role <> 'visitor'
         GROUP BY 1) f
 WHERE c.id = f.id;

CREATE TRIGGER messages_report_added AFTER INSERT ON messages
  FOR EACH ROW EXECUTE FUNCTION report_message_added();
CREATE TRIGGER messages_report_removed AFTER DELETE ON messages
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION report_messages_removed();
CREATE TRIGGER messages_report_changed AFTER UPDATE ON messages FOR EACH ROW
  WHEN ((OLD.conversation_id, OLD.role, OLD.created_at, OLD.tokens_in, OLD.tokens_out,
         OLD.cost_micro_cents) IS DISTINCT FROM
        (NEW.conversation_id, NEW.role, NEW.created_at, NEW.tokens_in, NEW.tokens_out,
         NEW.cost_micro_cents))
  EXECUTE FUNCTION report_message_changed();
CREATE TRIGGER conversations_report_deleting BEFORE DELETE ON conversations
  FOR EACH ROW EXECUTE FUNCTION report_conversation_deleting();
CREATE TRIGGER conversations_report_rekeyed AFTER UPDATE OF workspace_id, chatbot_id,
  assigned_user_id ON conversations FOR EACH ROW
  WHEN ((OLD.workspace_id, OLD.chatbot_id, OLD.assigned_user_id) IS DISTINCT FROM
        (NEW.workspace_id, NEW.chatbot_id, NEW.assigned_user_id))
  EXECUTE FUNCTION report_conversation_rekeyed();
CREATE TRIGGER conversations_report_handoff BEFORE UPDATE OF handoff_requested_at ON conversations
  FOR EACH ROW WHEN (OLD.handoff_requested_at IS DISTINCT FROM NEW.handoff_requested_at)
  EXECUTE FUNCTION report_handoff_requested();
CREATE TRIGGER conversations_report_added AFTER INSERT ON conversations
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  EXECUTE FUNCTION report_conversations_added();
CREATE TRIGGER conversations_report_removed AFTER DELETE ON conversations
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
  EXECUTE FUNCTION report_conversations_removed();
CREATE TRIGGER conversations_report_recounted AFTER UPDATE OF workspace_id, chatbot_id,
  assigned_user_id, created_at, handoff_requested_at, human_connected ON conversations
  FOR EACH ROW
  WHEN ((OLD.workspace_id, OLD.chatbot_id, OLD.assigned_user_id, OLD.created_at,
         OLD.handoff_requested_at IS NOT NULL OR OLD.human_connected) IS DISTINCT FROM
        (NEW.workspace_id, NEW.chatbot_id, NEW.assigned_user_id, NEW.created_at,
         NEW.handoff_requested_at IS NOT NULL OR NEW.human_connected))
  EXECUTE FUNCTION report_conversation_recounted();
CREATE TRIGGER conversation_events_report_added AFTER INSERT ON conversation_events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION report_events_added();
CREATE TRIGGER conversation_events_report_removed AFTER DELETE ON conversation_events
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION report_events_removed();

-- What the report still reads row by row, narrowed to the rows it reads (index-only scans once
-- vacuumed). Partial: a conversation enters them when it is resolved, rated or handed off, so
-- the widget's AI-only chat writes none of them.
CREATE INDEX conversations_report_resolved_idx ON conversations (workspace_id, resolved_at)
  INCLUDE (id, created_at, chatbot_id, assigned_user_id, first_human_reply_at)
  WHERE status = 'closed' AND resolution = 'resolved';
CREATE INDEX conversations_report_rated_idx ON conversations (workspace_id, rated_at)
  INCLUDE (chatbot_id, assigned_user_id, rating) WHERE rating IS NOT NULL;
CREATE INDEX conversations_report_handoff_idx ON conversations (workspace_id, handoff_requested_at)
  INCLUDE (id, first_response_at, chatbot_id, assigned_user_id)
  WHERE handoff_requested_at IS NOT NULL;
