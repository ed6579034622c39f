-- Allowed sites of a bot's widget (docs/widget-api.md#allowed-sites): origin
-- patterns such as `https://shop.example.com` or `https://*.example.com`.
-- Empty: the widget runs on any site, as before.
ALTER TABLE chatbots ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}';
