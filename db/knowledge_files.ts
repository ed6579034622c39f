/** knowledge_files: the original of an uploaded knowledge source (migration 0265). */
import type { Executor } from "./client.ts";

export interface NewKnowledgeFile {
  sourceId: number;
  chatbotId: number;
  fileName: string;
  format: string;
  sha256: string;
  bytes: Uint8Array;
}

export interface KnowledgeFileRow {
  source_id: number;
  file_name: string;
  format: string;
  byte_size: number;
  bytes: Uint8Array;
}

export async function insertKnowledgeFile(
  sql: Executor,
  workspaceId: number,
  f: NewKnowledgeFile,
): Promise<void> {
  await sql`
    INSERT INTO knowledge_files (source_id, workspace_id, chatbot_id, file_name, format,
      byte_size, sha256, bytes)
    VALUES (${f.sourceId}, ${workspaceId}, ${f.chatbotId}, ${f.fileName}, ${f.format},
      ${f.bytes.byteLength}, ${f.sha256}, ${f.bytes})`;
}

/** The stored file of a source, or null for a source that was not uploaded. */
export async function findKnowledgeFile(
  sql: Executor,
  workspaceId: number,
  sourceId: number,
): Promise<KnowledgeFileRow | null> {
  const [row] = await sql<KnowledgeFileRow[]>`
    SELECT source_id, file_name, format, byte_size, bytes FROM knowledge_files
     WHERE workspace_id = ${workspaceId} AND source_id = ${sourceId}`;
  return row ?? null;
}

/** Files a bot holds now (the per-bot limit). */
export async function countBotFiles(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM knowledge_files
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId}`;
  return row?.n ?? 0;
}

/** Store the text read from a file on its source, ready for training. */
export async function setExtractedContent(
  sql: Executor,
  workspaceId: number,
  sourceId: number,
  content: string,
  contentHash: string,
): Promise<void> {
  await sql`
    UPDATE knowledge_sources SET content = ${content}, content_hash = ${contentHash},
           updated_at = now()
     WHERE workspace_id = ${workspaceId} AND id = ${sourceId}`;
}

/** Hold the bot's row until commit, so concurrent uploads count its files one at a time. */
export async function lockBotForFiles(sql: Executor, chatbotId: number): Promise<void> {
  await sql`SELECT id FROM chatbots WHERE id = ${chatbotId} FOR UPDATE`;
}
