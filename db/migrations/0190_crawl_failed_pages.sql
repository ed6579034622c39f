-- A crawl's pages that were found but not indexed, kept beside pages_found and
-- pages_indexed so the dashboard shows them (and its realtime progress events
-- can be caught up from the list): failed = could not be fetched or used;
-- skipped = left out on purpose (noindex, no new text, a duplicate).
ALTER TABLE knowledge_sources
  ADD COLUMN pages_failed integer NOT NULL DEFAULT 0,
  ADD COLUMN pages_skipped integer NOT NULL DEFAULT 0;
