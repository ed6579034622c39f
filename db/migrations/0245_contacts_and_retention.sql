-- Customers' data under the owner's control (docs/data-protection.md).
--
-- Contacts: one row per visitor (bot and visitor id) who left an identity
-- (a name, an e-mail address or a verified user id) in any conversation, kept
-- by a trigger on conversations so that no code path that stores an identity
-- can forget it. The dashboard's contact list pages this table by id, fast at
-- any size; what the visitor did (conversations, pages, ratings) is read from
-- the conversations and visitors rows for the page shown. Erasure deletes the
-- row with everything else that names the contact.
CREATE TABLE contacts (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  visitor_id text NOT NULL,
  -- The newest identity the visitor gave (an older one stays on its conversation).
  name text,
  email text,
  phone text,
  -- The verified user id (`sub` of an identity token), never a client's claim.
  user_id text,
  identified_at timestamptz NOT NULL,
  UNIQUE (chatbot_id, visitor_id)
);
-- Newest first, keyset-paged on id.
CREATE INDEX contacts_workspace_idx ON contacts (workspace_id, id DESC);
-- Search by part of a name or an e-mail address (pg_trgm, migration 0080).
CREATE INDEX contacts_search_idx ON contacts
  USING gin ((lower(coalesce(name, '') || ' ' || coalesce(email, ''))) gin_trgm_ops);

CREATE FUNCTION contacts_track_identity() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sub text := NEW.meta -> 'identity' ->> 'sub';
BEGIN
  IF NEW.visitor_name IS NULL AND NEW.visitor_email IS NULL AND sub IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO contacts AS c (workspace_id, chatbot_id, visitor_id, name, email, phone, user_id,
                             identified_at)
  VALUES (NEW.workspace_id, NEW.chatbot_id, NEW.visitor_id, NEW.visitor_name, NEW.visitor_email,
          NEW.visitor_phone, sub, NEW.created_at)
  ON CONFLICT (chatbot_id, visitor_id) DO UPDATE
    SET name = coalesce(excluded.name, c.name),
        email = coalesce(excluded.email, c.email),
        phone = coalesce(excluded.phone, c.phone),
        user_id = coalesce(excluded.user_id, c.user_id);
  RETURN NULL;
END $$;

-- Only the columns that carry an identity: a new message (last_message_at)
-- does not fire it.
CREATE TRIGGER conversations_track_identity_ins AFTER INSERT ON conversations
  FOR EACH ROW EXECUTE FUNCTION contacts_track_identity();
CREATE TRIGGER conversations_track_identity_upd
  AFTER UPDATE OF visitor_name, visitor_email, visitor_phone, meta ON conversations
  FOR EACH ROW EXECUTE FUNCTION contacts_track_identity();

-- Visitors identified before this migration: oldest conversation first, so
-- the newest identity wins as it would have.
INSERT INTO contacts (workspace_id, chatbot_id, visitor_id, name, email, phone, user_id,
                      identified_at)
SELECT DISTINCT ON (chatbot_id, visitor_id) workspace_id, chatbot_id, visitor_id,
       (array_remove(array_agg(visitor_name) OVER w, NULL))[1],
       (array_remove(array_agg(visitor_email) OVER w, NULL))[1],
       (array_remove(array_agg(visitor_phone) OVER w, NULL))[1],
       (array_remove(array_agg(meta -> 'identity' ->> 'sub') OVER w, NULL))[1],
       min(created_at) OVER w
  FROM conversations
 WHERE visitor_name IS NOT NULL OR visitor_email IS NOT NULL
    OR meta -> 'identity' ->> 'sub' IS NOT NULL
WINDOW w AS (PARTITION BY chatbot_id, visitor_id ORDER BY created_at DESC
             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
 ORDER BY chatbot_id, visitor_id;

-- Erasure and export find a contact's conversations by e-mail address.
CREATE INDEX IF NOT EXISTS conversations_visitor_email_idx
  ON conversations (workspace_id, lower(visitor_email)) WHERE visitor_email IS NOT NULL;

-- Retention (docs/data-protection.md#retention): resolved conversations whose
-- last activity is older than this many days are deleted with their messages,
-- and visitors left with no conversation. NULL: kept until erased (default).
ALTER TABLE workspaces ADD COLUMN retention_days integer
  CHECK (retention_days IS NULL OR retention_days BETWEEN 30 AND 3650);

-- Erasure and retention delete the webhook events that hold a conversation
-- (its messages, its visitor's address): found by the conversation, not by a
-- scan of every event.
CREATE INDEX IF NOT EXISTS webhook_events_conversation_idx
  ON webhook_events (workspace_id, (source ->> 'conversationId'));
