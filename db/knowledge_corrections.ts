/**
 * knowledge_corrections: which Q&A sources are corrections of an AI reply,
 * and where each came from (migration 0270). The question and answer stay on
 * the knowledge source itself.
 */
import type { Executor } from "./client.ts";
import type { MessageRow } from "./messages.ts";

export interface CorrectionRow {
  id: number;
  chatbot_id: number;
  source_id: number;
  question: string;
  answer: string;
  status: string;
  chunk_count: number;
  /** The conversation's public id; null once retention has deleted the conversation. */
  conversation_public_id: string | null;
  message_id: number | null;
  corrected_by_name: string;
  created_at: Date;
  updated_at: Date;
}

export async function insertCorrection(
  sql: Executor,
  workspaceId: number,
  c: {
    chatbotId: number;
    sourceId: number;
    conversationId: number;
    messageId: number;
    userId: number;
    userName: string;
    now: Date;
  },
): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO knowledge_corrections (workspace_id, chatbot_id, source_id, conversation_id,
      message_id, corrected_by, corrected_by_name, created_at)
    VALUES (${workspaceId}, ${c.chatbotId}, ${c.sourceId}, ${c.conversationId}, ${c.messageId},
      ${c.userId}, ${c.userName}, ${c.now})
    RETURNING id`;
  return Number(row!.id);
}

function selectCorrections(sql: Executor) {
  return sql`
    SELECT k.id::int, k.chatbot_id::int, k.source_id::int, s.question, s.answer, s.status,
           s.chunk_count, c.public_id::text AS conversation_public_id, k.message_id::int,
           k.corrected_by_name, k.created_at, s.updated_at
      FROM knowledge_corrections k
      JOIN knowledge_sources s ON s.id = k.source_id
      LEFT JOIN conversations c ON c.id = k.conversation_id`;
}

/** A bot's corrections, newest first (at most `limit`). */
export async function listBotCorrections(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  limit: number,
): Promise<CorrectionRow[]> {
  return await sql<CorrectionRow[]>`
    ${selectCorrections(sql)}
     WHERE k.workspace_id = ${workspaceId} AND k.chatbot_id = ${chatbotId}
     ORDER BY k.id DESC LIMIT ${limit}`;
}

export async function findCorrection(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<CorrectionRow | null> {
  const [row] = await sql<CorrectionRow[]>`
    ${selectCorrections(sql)}
     WHERE k.workspace_id = ${workspaceId} AND k.id = ${id}`;
  return row ?? null;
}

/** Which of these sources are corrections (the try-it box labels their passages). */
export async function correctionSourceIds(
  sql: Executor,
  workspaceId: number,
  sourceIds: number[],
): Promise<Set<number>> {
  if (sourceIds.length === 0) return new Set();
  const rows = await sql<{ source_id: number }[]>`
    SELECT source_id::int FROM knowledge_corrections
     WHERE workspace_id = ${workspaceId} AND source_id = ANY(${sql.array(sourceIds)}::bigint[])`;
  return new Set(rows.map((r) => Number(r.source_id)));
}

/** One message of a conversation, by id. */
export async function findConversationMessage(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  messageId: number,
): Promise<MessageRow | null> {
  const [row] = await sql<MessageRow[]>`
    SELECT * FROM messages
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
       AND id = ${messageId}`;
  return row ?? null;
}

/** The visitor's message that an AI reply answered: the last one before it. */
export async function visitorMessageBefore(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  messageId: number,
): Promise<string | null> {
  const [row] = await sql<{ content: string }[]>`
    SELECT content FROM messages
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
       AND id < ${messageId} AND role = 'visitor'
     ORDER BY id DESC LIMIT 1`;
  return row?.content ?? null;
}

/** Rewrite a correction's Q&A source (its question is also its title); the caller reindexes. */
export async function updateCorrectionSource(
  sql: Executor,
  workspaceId: number,
  sourceId: number,
  s: { title: string; question: string; answer: string; contentHash: string },
): Promise<void> {
  await sql`
    UPDATE knowledge_sources
       SET title = ${s.title}, question = ${s.question}, answer = ${s.answer},
           content_hash = ${s.contentHash}, status = 'pending', updated_at = now()
     WHERE workspace_id = ${workspaceId} AND id = ${sourceId}`;
}

/**
 * Erasure: the corrections made from these conversations go with their Q&A
 * sources (and chunks, by cascade), since the question is usually the
 * visitor's own words. Returns the bots whose knowledge changed.
 */
export async function deleteCorrectionsFrom(
  sql: Executor,
  workspaceId: number,
  conversationIds: number[],
): Promise<{ chatbot_id: number; source_id: number }[]> {
  if (conversationIds.length === 0) return [];
  return await sql<{ chatbot_id: number; source_id: number }[]>`
    DELETE FROM knowledge_sources s USING knowledge_corrections k
     WHERE k.workspace_id = ${workspaceId}
       AND k.conversation_id = ANY(${sql.array(conversationIds)}::bigint[])
       AND s.id = k.source_id
    RETURNING s.chatbot_id, s.id AS source_id`;
}
