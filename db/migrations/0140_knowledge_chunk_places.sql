-- Retrieval reads the neighbours of the chunks it ranked best (the chunk before
-- and after each, by ordinal): one probe per place with this index, where the
-- index on source_id alone read every chunk of a long source for each. It
-- also serves everything the old one did (deleting a source's chunks).
CREATE INDEX knowledge_chunks_source_ordinal_idx ON knowledge_chunks (source_id, ordinal);
DROP INDEX knowledge_chunks_source_idx;
