-- A screen share also ends when its bot's `screen_share` flag is turned off:
-- ended_by `turned_off` (domain/chatbots/update_chatbot.ts).
ALTER TABLE screen_shares DROP CONSTRAINT screen_shares_ended_by_check;
ALTER TABLE screen_shares ADD CONSTRAINT screen_shares_ended_by_check
  CHECK (ended_by IN ('visitor', 'agent', 'closed', 'left', 'turned_off'));
