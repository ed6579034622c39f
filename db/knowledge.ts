/** knowledge_sources and knowledge_chunks: what a bot knows and its search index. */
import type { Executor } from "./client.ts";

export interface KnowledgeSourceRow {
  id: number;
  workspace_id: number;
  chatbot_id: number;
  parent_id: number | null;
  type: "text" | "qa" | "url" | "page";
  title: string;
  content: string | null;
  question: string | null;
  answer: string | null;
  source_url: string | null;
  content_hash: string | null;
  status: string;
  error: string | null;
  chunk_count: number;
  pages_found: number;
  pages_indexed: number;
  created_at: Date;
  updated_at: Date;
}

export interface NewSource {
  chatbotId: number;
  parentId?: number | null;
  type: KnowledgeSourceRow["type"];
  title: string;
  content?: string | null;
  question?: string | null;
  answer?: string | null;
  sourceUrl?: string | null;
  contentHash?: string | null;
  status?: string;
}

export async function insertSource(
  sql: Executor,
  workspaceId: number,
  s: NewSource,
): Promise<KnowledgeSourceRow> {
  const [row] = await sql<KnowledgeSourceRow[]>`
    INSERT INTO knowledge_sources (workspace_id, chatbot_id, parent_id, type, title, content,
      question, answer, source_url, content_hash, status)
    VALUES (${workspaceId}, ${s.chatbotId}, ${s.parentId ?? null}, ${s.type}, ${s.title},
      ${s.content ?? null}, ${s.question ?? null}, ${s.answer ?? null}, ${s.sourceUrl ?? null},
      ${s.contentHash ?? null}, ${s.status ?? "pending"})
    RETURNING *`;
  return row!;
}

export async function findSource(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<KnowledgeSourceRow | null> {
  const [row] = await sql<KnowledgeSourceRow[]>`
    SELECT * FROM knowledge_sources WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row ?? null;
}

/** A top-level source of a bot with this title and content hash (retraining, seeding). */
export async function findSourceByHash(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  title: string,
  contentHash: string,
): Promise<KnowledgeSourceRow | null> {
  const [row] = await sql<KnowledgeSourceRow[]>`
    SELECT * FROM knowledge_sources
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId} AND parent_id IS NULL
       AND title = ${title} AND content_hash = ${contentHash}
     ORDER BY id LIMIT 1`;
  return row ?? null;
}

export async function setSourceStatus(
  sql: Executor,
  workspaceId: number,
  id: number,
  status: string,
  fields: { chunkCount?: number; error?: string | null } = {},
): Promise<void> {
  await sql`
    UPDATE knowledge_sources
       SET status = ${status}, updated_at = now(),
           chunk_count = COALESCE(${fields.chunkCount ?? null}, chunk_count),
           error = ${fields.error ?? null}
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

export interface NewChunk {
  ordinal: number;
  title: string;
  url: string | null;
  content: string;
}

/** Replace a source's chunks in one statement; the caller wraps it in a transaction. */
export async function replaceChunks(
  sql: Executor,
  workspaceId: number,
  source: { id: number; chatbotId: number; language: string },
  chunks: NewChunk[],
): Promise<void> {
  await sql`DELETE FROM knowledge_chunks WHERE workspace_id = ${workspaceId} AND source_id = ${source.id}`;
  if (chunks.length === 0) return;
  const BATCH = 500;
  for (let i = 0; i < chunks.length; i += BATCH) {
    const part = chunks.slice(i, i + BATCH);
    await sql`
      INSERT INTO knowledge_chunks (workspace_id, chatbot_id, source_id, ordinal, title, url, content, tsv)
      SELECT ${workspaceId}, ${source.chatbotId}, ${source.id}, c.ordinal, c.title, c.url, c.content,
             setweight(to_tsvector(${source.language}::regconfig, c.title), 'A') ||
             to_tsvector(${source.language}::regconfig, c.content)
        FROM unnest(${sql.array(part.map((c) => c.ordinal))}::int[],
                    ${sql.array(part.map((c) => c.title))}::text[],
                    ${sql.array(part.map((c) => c.url ?? ""))}::text[],
                    ${sql.array(part.map((c) => c.content))}::text[])
             AS c(ordinal, title, url, content)`;
  }
}
