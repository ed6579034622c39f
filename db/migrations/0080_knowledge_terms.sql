-- Retrieval ranks by BM25 (docs/answering.md), which needs each bot's
-- vocabulary: in how many chunks each lexeme occurs (its rarity) and the
-- chunk count and total length. Triggers keep them exact through every write
-- and delete of chunks, including cascades, so no code path can forget them.
-- pg_trgm finds the known word nearest to a misspelled one.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE knowledge_terms (
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  lexeme text NOT NULL,
  df integer NOT NULL,
  PRIMARY KEY (chatbot_id, lexeme)
) WITH (fillfactor = 50);
-- Room on every page for updated counts: retraining rewrites a document's df
-- in place (HOT updates), without new entries in either index.
CREATE INDEX knowledge_terms_trgm_idx ON knowledge_terms USING gin (lexeme gin_trgm_ops);

CREATE TABLE knowledge_stats (
  chatbot_id bigint PRIMARY KEY REFERENCES chatbots(id) ON DELETE CASCADE,
  chunks integer NOT NULL,
  -- Sum of the chunks' lexeme counts (length(tsv)): the average chunk length.
  lexemes bigint NOT NULL
);

CREATE FUNCTION knowledge_terms_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO knowledge_terms AS t (chatbot_id, lexeme, df)
  SELECT n.chatbot_id, l.lexeme, count(*)
    FROM added n, unnest(tsvector_to_array(n.tsv)) AS l(lexeme)
   GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (chatbot_id, lexeme) DO UPDATE SET df = t.df + excluded.df;
  INSERT INTO knowledge_stats AS s (chatbot_id, chunks, lexemes)
  SELECT chatbot_id, count(*), sum(length(tsv)) FROM added GROUP BY 1 ORDER BY 1
  ON CONFLICT (chatbot_id) DO UPDATE
    SET chunks = s.chunks + excluded.chunks, lexemes = s.lexemes + excluded.lexemes;
  RETURN NULL;
END $$;

CREATE FUNCTION knowledge_terms_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE knowledge_terms t SET df = t.df - g.n
    FROM (SELECT o.chatbot_id, l.lexeme, count(*) AS n
            FROM removed o, unnest(tsvector_to_array(o.tsv)) AS l(lexeme)
           GROUP BY 1, 2) g
   WHERE t.chatbot_id = g.chatbot_id AND t.lexeme = g.lexeme;
  DELETE FROM knowledge_terms t
   USING (SELECT DISTINCT chatbot_id FROM removed) b
   WHERE t.chatbot_id = b.chatbot_id AND t.df <= 0;
  UPDATE knowledge_stats s SET chunks = s.chunks - g.n, lexemes = s.lexemes - g.len
    FROM (SELECT chatbot_id, count(*) AS n, sum(length(tsv)) AS len FROM removed GROUP BY 1) g
   WHERE s.chatbot_id = g.chatbot_id;
  RETURN NULL;
END $$;

CREATE TRIGGER knowledge_chunks_terms_added AFTER INSERT ON knowledge_chunks
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION knowledge_terms_added();
CREATE TRIGGER knowledge_chunks_terms_removed AFTER DELETE ON knowledge_chunks
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_terms_removed();

-- Chunks trained before this migration.
INSERT INTO knowledge_terms (chatbot_id, lexeme, df)
SELECT k.chatbot_id, l.lexeme, count(*)
  FROM knowledge_chunks k, unnest(tsvector_to_array(k.tsv)) AS l(lexeme)
 GROUP BY 1, 2;
INSERT INTO knowledge_stats (chatbot_id, chunks, lexemes)
SELECT chatbot_id, count(*), sum(length(tsv)) FROM knowledge_chunks GROUP BY 1;
