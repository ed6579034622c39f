-- Retrieval reads the GIN index on every visitor message. With fastupdate,
-- fresh chunks wait in a pending list that every search scans linearly until
-- (auto)vacuum or the list's size limit merges it, and embedded PGlite has no
-- autovacuum. A small limit (256 kB instead of 4 MB) keeps that scan short
-- while training still batches its index writes.
ALTER INDEX knowledge_chunks_tsv_idx SET (gin_pending_list_limit = 256);
