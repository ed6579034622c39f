-- Whether a source's chunks carry embeddings, so retrieval embeds a visitor's
-- question (a paid provider call, and latency) only for bots that can use it.
ALTER TABLE knowledge_sources ADD COLUMN IF NOT EXISTS embedded boolean NOT NULL DEFAULT false;
