-- Websites that stay in sync (docs/portal-api.md#keeping-a-website-in-sync).
-- A url source has a schedule (off, daily, weekly), the time its next sync is
-- due and what the last one found; each crawled page keeps the validators its
-- server sent (ETag, Last-Modified) and the links it had, so a page answered
-- 304 Not Modified is neither fetched again nor re-embedded and still leads
-- the crawl to the pages it links.
ALTER TABLE knowledge_sources
  ADD COLUMN sync_schedule text NOT NULL DEFAULT 'off'
    CHECK (sync_schedule IN ('off', 'daily', 'weekly')),
  ADD COLUMN next_sync_at timestamptz,
  ADD COLUMN last_sync jsonb,
  ADD COLUMN etag text,
  ADD COLUMN last_modified text,
  ADD COLUMN page_links text[];

-- The scheduler's look-up of due sources.
CREATE INDEX knowledge_sources_sync_due ON knowledge_sources (next_sync_at)
  WHERE next_sync_at IS NOT NULL;
