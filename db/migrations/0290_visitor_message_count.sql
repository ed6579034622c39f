-- Each conversation's number of visitor messages, kept by the statements that
-- store one (db/messages.ts appendMessageStatement, db/first_turn.ts) in the
-- UPDATE or INSERT of the conversation row they already make, so the visitor's
-- path gains no statement and no index entry (the column is in no index: the
-- UPDATE stays as HOT-eligible as it was).
--
-- The realtime broadcast of a conversation's inbox row has no viewer, so its
-- `unread` is every visitor message of the conversation (docs/realtime.md).
-- Counted from `messages`, that walked all of the conversation's messages once
-- per event: the soak's long conversation gained ~550 messages a window and the
-- statement went from 1.16 to 2.16 ms mean in an hour (issue 44;
-- docs/BENCHMARKS.md). Read from here it is one column of a row already read.
ALTER TABLE conversations ADD COLUMN visitor_message_count integer NOT NULL DEFAULT 0;

UPDATE conversations c SET visitor_message_count = m.n
  FROM (SELECT conversation_id, count(*)::int AS n FROM messages
         WHERE role = 'visitor' GROUP BY conversation_id) m
 WHERE c.id = m.conversation_id;

-- Messages deleted while their conversation stays (no path does this today:
-- retention and erasure delete whole conversations, whose messages leave by
-- the cascade and find no conversation here): the count follows them.
CREATE FUNCTION conversations_visitor_messages_leaving() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE conversations c SET visitor_message_count = c.visitor_message_count - d.n
    FROM (SELECT r.conversation_id, count(*)::int AS n FROM removed r
           WHERE r.role = 'visitor' GROUP BY 1) d
   WHERE c.id = d.conversation_id;
  RETURN NULL;
END $$;

CREATE TRIGGER messages_visitor_count_leaving AFTER DELETE ON messages
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
  EXECUTE FUNCTION conversations_visitor_messages_leaving();
