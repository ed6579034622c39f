-- A bot's knowledge generation: a new value from one sequence after every
-- statement that writes its chunks or sources (triggers, so no code path can
-- forget it). The widget reads it with the bot, in the same round trip, and
-- retrieval reuses a full-text search result only under the same generation
-- (domain/knowledge/ranked_search_cache.ts). A sequence, not a counter: a
-- value is never seen twice, even if the stats row is removed and made again.
CREATE SEQUENCE knowledge_generation_seq;
ALTER TABLE knowledge_stats
  ADD COLUMN generation bigint NOT NULL DEFAULT nextval('knowledge_generation_seq');

CREATE FUNCTION knowledge_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE knowledge_stats s SET generation = nextval('knowledge_generation_seq')
   WHERE s.chatbot_id IN (SELECT DISTINCT chatbot_id FROM changed);
  RETURN NULL;
END $$;

-- Named to fire after knowledge_chunks_terms_* (triggers fire in name order),
-- which create the stats row of a bot's first chunks.
CREATE TRIGGER knowledge_chunks_version_inserted AFTER INSERT ON knowledge_chunks
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_generation_bump();
CREATE TRIGGER knowledge_chunks_version_updated AFTER UPDATE ON knowledge_chunks
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_generation_bump();
CREATE TRIGGER knowledge_chunks_version_deleted AFTER DELETE ON knowledge_chunks
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_generation_bump();
-- A source's title, status and embedded flag are part of a search result.
CREATE TRIGGER knowledge_sources_version_inserted AFTER INSERT ON knowledge_sources
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_generation_bump();
CREATE TRIGGER knowledge_sources_version_updated AFTER UPDATE ON knowledge_sources
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_generation_bump();
CREATE TRIGGER knowledge_sources_version_deleted AFTER DELETE ON knowledge_sources
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_generation_bump();
