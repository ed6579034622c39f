-- Screen sharing (branding `screen_share`): an agent asks to see the visitor's
-- page, the visitor consents or declines in the widget, and either side (or the
-- conversation's close, or the visitor leaving) ends it. One row per request,
-- kept as the record of who asked and when the visitor consented; the page
-- itself is relayed live and never stored.
CREATE TABLE screen_shares (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  requested_by bigint REFERENCES users(id) ON DELETE SET NULL,
  state text NOT NULL CHECK (state IN ('requested', 'active', 'declined', 'ended')),
  -- Who ended it: visitor, agent, closed (the conversation was closed), left (the page).
  ended_by text CHECK (ended_by IN ('visitor', 'agent', 'closed', 'left')),
  requested_at timestamptz NOT NULL,
  started_at timestamptz,
  ended_at timestamptz
);
-- At most one request or share open per conversation.
CREATE UNIQUE INDEX screen_shares_open_idx ON screen_shares (conversation_id)
  WHERE state IN ('requested', 'active');
CREATE INDEX screen_shares_conversation_idx ON screen_shares (conversation_id, id DESC);
