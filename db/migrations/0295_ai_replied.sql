-- Whether the AI has replied in a conversation, kept on the conversation by
-- the AI's own message statement (db/messages.ts appendMessageStatement), in
-- the UPDATE of the conversation row it already makes: the visitor's path
-- gains no statement and no index entry (the column is in no index).
--
-- The report's AI resolutions (docs/reports.md) count conversations left with
-- the bot, quiet, with an AI reply. That fact came from report_ai_replied
-- (migration 0280), rolled up by the background job, plus the messages above
-- its watermark: one index probe per conversation, 20,000 a month in the
-- bench, and they were most of the statement's time (about 200 ms of CPU a
-- period on the slower VM, against 20 ms for reading the conversations
-- themselves: docs/BENCHMARKS.md). Read from here it is a column of a row
-- already read, exact at every moment with no watermark.
ALTER TABLE conversations ADD COLUMN ai_replied boolean NOT NULL DEFAULT false;

UPDATE conversations c SET ai_replied = true
  FROM (SELECT DISTINCT conversation_id FROM messages WHERE role = 'assistant') m
 WHERE c.id = m.conversation_id;

DROP TABLE report_ai_replied;

-- The rollup's triggers (migration 0280) without report_ai_replied.
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
  RETURN OLD;
END $$;

-- Messages deleted while their conversation stays (no path does this today):
-- the rollup's subtraction, and the conversation's reply facts recomputed,
-- now whether the AI has replied too.
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
