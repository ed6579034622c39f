-- Uploaded files behind knowledge sources (docs/knowledge.md, "Files").
--
-- The original file is kept in the database, on both backends: with
-- PostgreSQL every instance behind a load balancer reads the same bytes
-- (no shared volume to configure), a backup of the database is a backup of
-- the files, and deleting the source removes the file in the same
-- transaction through the foreign key, so no file outlives its source and
-- no source points at a missing file. The embedded database lives under
-- DATA_DIR, so there the files do too. Files are capped (20 MiB each, 200
-- per bot).
CREATE TABLE knowledge_files (
  source_id bigint PRIMARY KEY REFERENCES knowledge_sources(id) ON DELETE CASCADE,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  file_name text NOT NULL,
  -- pdf, docx, markdown, html, text or csv: how its text is read.
  format text NOT NULL,
  byte_size integer NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_files_bot_idx ON knowledge_files (chatbot_id);

-- The bytes, in parts of at most 1 MiB written one statement each: the
-- embedded database takes a statement through a socket whose cost grows
-- faster than the statement (a 19 MiB value in one INSERT took 20 s; in
-- parts, linear), and a part never holds the one connection for long.
CREATE TABLE knowledge_file_parts (
  source_id bigint NOT NULL REFERENCES knowledge_files(source_id) ON DELETE CASCADE,
  part integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (source_id, part)
);
