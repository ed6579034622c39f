-- What full-text search reads from a chunk: the title (weight A, for the
-- title boost) and the content. '/' splits paths and URLs into their words
-- ("/widget.js" is found by "widget.js"). '<' and '>' are read as plain
-- characters: PostgreSQL's parser takes anything that looks like an HTML tag
-- as one skipped token, and a code sample in a document ("<script src=…>"
-- beside a closing tag whose '/' became a space) made it drop every word of
-- the chunk after it. Knowledge is plain text (crawled pages are converted to
-- text first), so a '<' is a code sample or a comparison, never markup.
CREATE FUNCTION knowledge_tsv(cfg regconfig, title text, content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector(cfg, translate(title, '/<>', '   ')), 'A') ||
         to_tsvector(cfg, translate(content, '/<>', '   '))
$$;

-- Chunks indexed before: read again, and the vocabulary counted again from them.
UPDATE knowledge_chunks k SET tsv = knowledge_tsv(b.language::regconfig, k.title, k.content)
  FROM chatbots b
 WHERE b.id = k.chatbot_id;
DELETE FROM knowledge_terms;
DELETE FROM knowledge_stats;
INSERT INTO knowledge_terms (chatbot_id, lexeme, df)
SELECT k.chatbot_id, l.lexeme, count(*)
  FROM knowledge_chunks k, unnest(tsvector_to_array(k.tsv)) AS l(lexeme)
 GROUP BY 1, 2;
INSERT INTO knowledge_stats (chatbot_id, chunks, lexemes)
SELECT chatbot_id, count(*), sum(length(tsv)) FROM knowledge_chunks GROUP BY 1;
