-- A crawled page is kept once per url source and URL: a re-crawl or a job resumed
-- after a restart updates the page in place instead of indexing it twice.
CREATE UNIQUE INDEX knowledge_sources_page_url_idx ON knowledge_sources (parent_id, source_url)
  WHERE parent_id IS NOT NULL;

-- Jobs are found by their dedupe key when a source is deleted.
CREATE INDEX jobs_kind_status_idx ON jobs (kind, status);
