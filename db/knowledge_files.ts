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

/** Bytes per stored part (migration 0265 says why the file is split). */
const PART_BYTES = 1024 * 1024;

/** The file and its parts; the caller wraps it in the source's transaction. */
export async function insertKnowledgeFile(
  sql: Executor,
  workspaceId: number,
  f: NewKnowledgeFile,
): Promise<void> {
  await sql`
    INSERT INTO knowledge_files (source_id, workspace_id, chatbot_id, file_name, format,
      byte_size, sha256)
    VALUES (${f.sourceId}, ${workspaceId}, ${f.chatbotId}, ${f.fileName}, ${f.format},
      ${f.bytes.byteLength}, ${f.sha256})`;
  for (let at = 0, part = 0; at < f.bytes.byteLength; at += PART_BYTES, part++) {
    const bytes = f.bytes.subarray(at, at + PART_BYTES);
    await sql`
      INSERT INTO knowledge_file_parts (source_id, part, bytes)
      VALUES (${f.sourceId}, ${part}, ${bytes})`;
  }
}

/** The stored file of a source, or null for a source that was not uploaded. */
export async function findKnowledgeFile(
  sql: Executor,
  workspaceId: number,
  sourceId: number,
): Promise<KnowledgeFileRow | null> {
  const [file] = await sql<Omit<KnowledgeFileRow, "bytes">[]>`
    SELECT source_id, file_name, format, byte_size FROM knowledge_files
     WHERE workspace_id = ${workspaceId} AND source_id = ${sourceId}`;
  if (!file) return null;
  const bytes = new Uint8Array(file.byte_size);
  let at = 0;
  // One part a statement, as they were written.
  for (let part = 0; at < file.byte_size; part++) {
    const [row] = await sql<{ bytes: Uint8Array }[]>`
      SELECT bytes FROM knowledge_file_parts WHERE source_id = ${sourceId} AND part = ${part}`;
    if (!row) break;
    bytes.set(row.bytes, at);
    at += row.bytes.byteLength;
  }
  return { ...file, bytes: bytes.subarray(0, at) };
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
