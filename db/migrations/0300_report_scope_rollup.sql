-- Message counts a report filtered by an agent or a tag can read without the
-- messages themselves (issue 40; docs/reports.md "How figures stay exact").
--
-- The rollup of migration 0280 is keyed by bot, so a report by an agent or a
-- tag counted its conversations' messages one by one: 410 to 570 ms a period
-- on the bench's 1,000,000 messages (a scan of every message), most of such a
-- report's time (docs/BENCHMARKS.md). The same rounds now also add each
-- message to the row of its conversation's assignee and of each of its tags,
-- keyed like the bot rollup by UTC quarter hour, bot and author role.
--
-- An assignee and a tag, unlike a bot, change after messages are written: a
-- conversation is reassigned, tagged and untagged. So the triggers below move
-- a conversation's rolled-up messages (ids at or below the watermark) from
-- the old key to the new one when that happens; messages above the watermark
-- are the live tail, which the report counts with the conversation's current
-- assignee and tags. The triggers hold the state row FOR SHARE (several may
-- run at once; a round's FOR UPDATE waits for them and they for it), so the
-- argument of migration 0280 holds: whichever comes first finishes first,
-- and the other's next statement sees its result. Nothing here is on the
-- visitor's path: a visitor's message and the AI's reply change neither.
CREATE TABLE report_scope_quarters (
  workspace_id bigint NOT NULL,
  scope text NOT NULL CHECK (scope IN ('agent', 'tag')),
  scope_id bigint NOT NULL,
  quarter timestamptz NOT NULL,
  chatbot_id bigint NOT NULL,
  role text NOT NULL,
  n bigint NOT NULL,
  tokens bigint NOT NULL,
  cost_micro_cents bigint NOT NULL,
  PRIMARY KEY (workspace_id, scope, scope_id, quarter, chatbot_id, role)
);
-- No foreign keys, as for report_message_quarters: a deleted member's or
-- tag's rows are deleted by the triggers on users and tags below.

-- Adds (sign 1) or takes away (sign -1) the messages at or below `w` of the
-- given (conversation, scope id) pairs under that scope.
CREATE FUNCTION report_scope_add(p_scope text, pairs jsonb, sign int, w bigint)
  RETURNS void LANGUAGE sql AS $$
  INSERT INTO report_scope_quarters AS q
    (workspace_id, scope, scope_id, quarter, chatbot_id, role, n, tokens, cost_micro_cents)
  SELECT m.workspace_id, p_scope, p.scope_id, report_quarter(m.created_at), c.chatbot_id, m.role,
         sign * count(*), sign * sum(m.tokens_in + m.tokens_out), sign * sum(m.cost_micro_cents)
    FROM jsonb_to_recordset(pairs) AS p(conversation_id bigint, scope_id bigint)
    JOIN conversations c ON c.id = p.conversation_id
    JOIN messages m ON m.conversation_id = p.conversation_id
   WHERE m.id <= w
   GROUP BY m.workspace_id, p.scope_id, report_quarter(m.created_at), c.chatbot_id, m.role
  ON CONFLICT (workspace_id, scope, scope_id, quarter, chatbot_id, role) DO UPDATE
    SET n = q.n + EXCLUDED.n, tokens = q.tokens + EXCLUDED.tokens,
        cost_micro_cents = q.cost_micro_cents + EXCLUDED.cost_micro_cents
$$;

-- Reassigned: its rolled-up messages move from the old member to the new one.
-- A member being deleted (the foreign key's SET NULL) has had their rows
-- deleted already, so nothing is taken from them.
CREATE FUNCTION report_scope_reassigned() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE w bigint;
BEGIN
  SELECT watermark INTO w FROM report_rollup_state WHERE id = 1 FOR SHARE;
  IF OLD.assigned_user_id IS NOT NULL
     AND EXISTS (SELECT 1 FROM users WHERE id = OLD.assigned_user_id) THEN
    PERFORM report_scope_add('agent', jsonb_build_array(jsonb_build_object(
      'conversation_id', NEW.id, 'scope_id', OLD.assigned_user_id)), -1, w);
  END IF;
  IF NEW.assigned_user_id IS NOT NULL THEN
    PERFORM report_scope_add('agent', jsonb_build_array(jsonb_build_object(
      'conversation_id', NEW.id, 'scope_id', NEW.assigned_user_id)), 1, w);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER conversations_report_reassigned AFTER UPDATE OF assigned_user_id ON conversations
  FOR EACH ROW WHEN (OLD.assigned_user_id IS DISTINCT FROM NEW.assigned_user_id)
  EXECUTE FUNCTION report_scope_reassigned();

-- Tagged: the conversation's rolled-up messages count for the tag too.
CREATE FUNCTION report_scope_tagged() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE w bigint;
BEGIN
  SELECT watermark INTO w FROM report_rollup_state WHERE id = 1 FOR SHARE;
  PERFORM report_scope_add('tag', (SELECT jsonb_agg(jsonb_build_object(
    'conversation_id', a.conversation_id, 'scope_id', a.tag_id)) FROM added a), 1, w);
  RETURN NULL;
END $$;

-- Untagged: taken away again. A conversation being deleted (its tags leave by
-- the cascade) was taken out whole by report_conversation_leaving, and a tag
-- being deleted had its rows deleted: the join to each skips them.
CREATE FUNCTION report_scope_untagged() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE w bigint;
BEGIN
  SELECT watermark INTO w FROM report_rollup_state WHERE id = 1 FOR SHARE;
  PERFORM report_scope_add('tag', (SELECT jsonb_agg(jsonb_build_object(
    'conversation_id', r.conversation_id, 'scope_id', r.tag_id))
    FROM removed r JOIN tags t ON t.id = r.tag_id), -1, w);
  RETURN NULL;
END $$;

CREATE TRIGGER conversation_tags_report_added AFTER INSERT ON conversation_tags
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION report_scope_tagged();
CREATE TRIGGER conversation_tags_report_removed AFTER DELETE ON conversation_tags
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION report_scope_untagged();

-- A member or a tag deleted: their rows go with them (never read again).
CREATE FUNCTION report_scope_member_leaving() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_scope_quarters
   WHERE workspace_id = OLD.workspace_id AND scope = 'agent' AND scope_id = OLD.id;
  RETURN OLD;
END $$;
CREATE FUNCTION report_scope_tag_leaving() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_scope_quarters
   WHERE workspace_id = OLD.workspace_id AND scope = 'tag' AND scope_id = OLD.id;
  RETURN OLD;
END $$;
CREATE TRIGGER users_report_leaving BEFORE DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION report_scope_member_leaving();
CREATE TRIGGER tags_report_leaving BEFORE DELETE ON tags
  FOR EACH ROW EXECUTE FUNCTION report_scope_tag_leaving();

-- A conversation about to be deleted: as in migration 0280, and now from its
-- assignee's and its tags' rows too.
CREATE OR REPLACE FUNCTION report_conversation_leaving() RETURNS trigger LANGUAGE plpgsql AS $$
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
  IF OLD.assigned_user_id IS NOT NULL THEN
    PERFORM report_scope_add('agent', jsonb_build_array(jsonb_build_object(
      'conversation_id', OLD.id, 'scope_id', OLD.assigned_user_id)), -1, w);
  END IF;
  PERFORM report_scope_add('tag', (SELECT jsonb_agg(jsonb_build_object(
    'conversation_id', ct.conversation_id, 'scope_id', ct.tag_id))
    FROM conversation_tags ct WHERE ct.conversation_id = OLD.id), -1, w);
  RETURN OLD;
END $$;

-- Messages deleted while their conversation stays: as in migration 0295, and
-- now from the assignee's and the tags' rows too.
CREATE OR REPLACE FUNCTION report_messages_leaving() RETURNS trigger LANGUAGE plpgsql AS $$
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
  UPDATE report_scope_quarters q
     SET n = q.n - d.n, tokens = q.tokens - d.tokens,
         cost_micro_cents = q.cost_micro_cents - d.cost
    FROM (SELECT r.workspace_id, k.scope, k.scope_id, report_quarter(r.created_at) AS quarter,
                 c.chatbot_id, r.role, count(*) AS n, sum(r.tokens_in + r.tokens_out) AS tokens,
                 sum(r.cost_micro_cents) AS cost
            FROM removed r JOIN conversations c ON c.id = r.conversation_id
            JOIN LATERAL (SELECT 'agent' AS scope, c.assigned_user_id AS scope_id
                           WHERE c.assigned_user_id IS NOT NULL
                          UNION ALL
                          SELECT 'tag', ct.tag_id FROM conversation_tags ct
                           WHERE ct.conversation_id = c.id) k ON true
           WHERE r.id <= w
           GROUP BY 1, 2, 3, 4, 5, 6) d
   WHERE q.workspace_id = d.workspace_id AND q.scope = d.scope AND q.scope_id = d.scope_id
     AND q.quarter = d.quarter AND q.chatbot_id = d.chatbot_id AND q.role = d.role;
  UPDATE conversations c
     SET ai_replied = EXISTS (SELECT 1 FROM messages m
                               WHERE m.conversation_id = c.id AND m.role = 'assistant')
   WHERE c.id IN (SELECT r.conversation_id FROM removed r WHERE r.role = 'assistant');
  UPDATE conversations c
     SET first_human_reply_at = (SELECT min(m.created_at) FROM messages m
                                  WHERE m.conversation_id = c.id AND m.role = 'agent'),
         first_response_at = (SELECT min(m.created_at) FROM messages m
                               WHERE m.conversation_id = c.id AND m.role = 'agent'
                                 AND m.created_at >= c.handoff_requested_at)
   WHERE c.id IN (SELECT r.conversation_id FROM removed r WHERE r.role = 'agent');
  RETURN NULL;
END $$;

-- What is already rolled up, counted once for its assignees and tags.
INSERT INTO report_scope_quarters
  (workspace_id, scope, scope_id, quarter, chatbot_id, role, n, tokens, cost_micro_cents)
SELECT m.workspace_id, 'agent', c.assigned_user_id, report_quarter(m.created_at), c.chatbot_id,
       m.role, count(*), sum(m.tokens_in + m.tokens_out), sum(m.cost_micro_cents)
  FROM messages m JOIN conversations c ON c.id = m.conversation_id
 WHERE c.assigned_user_id IS NOT NULL
   AND m.id <= (SELECT watermark FROM report_rollup_state WHERE id = 1)
 GROUP BY 1, 3, 4, 5, 6;
INSERT INTO report_scope_quarters
  (workspace_id, scope, scope_id, quarter, chatbot_id, role, n, tokens, cost_micro_cents)
SELECT m.workspace_id, 'tag', ct.tag_id, report_quarter(m.created_at), c.chatbot_id,
       m.role, count(*), sum(m.tokens_in + m.tokens_out), sum(m.cost_micro_cents)
  FROM messages m JOIN conversations c ON c.id = m.conversation_id
  JOIN conversation_tags ct ON ct.conversation_id = c.id
 WHERE m.id <= (SELECT watermark FROM report_rollup_state WHERE id = 1)
 GROUP BY 1, 3, 4, 5, 6;
