-- A push subscription belongs to the agent who registered it. The endpoint
-- alone was the key, so another account (even of another workspace) posting
-- a known endpoint took the row over, and its owner's device got the other
-- account's alerts. Now the key is the agent and the endpoint: the same
-- agent registering again updates their row; another agent gets a row of
-- their own, and nobody's row ever changes hands.
ALTER TABLE push_subscriptions DROP CONSTRAINT push_subscriptions_endpoint_key;
CREATE UNIQUE INDEX push_subscriptions_owner_endpoint_idx
  ON push_subscriptions (user_id, endpoint);
