-- The owners' dashboard (/dashboard) signs in with tokens of their own
-- ability, so a dashboard token opens only /api/dashboard and no other
-- surface's token opens it.
ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_ability_check;
ALTER TABLE access_tokens ADD CONSTRAINT access_tokens_ability_check
  CHECK (ability IN ('api', 'portal', 'agent', 'dashboard'));
