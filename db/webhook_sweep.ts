/**
 * The recovery sweep's reads: messages and conversations newer than the
 * cursor and older than the settle time, in workspaces whose endpoints
 * (created before the row) subscribe to their event, whose event is not
 * recorded yet. Read by primary key range, so a sweep costs what is new.
 */
import type { Executor } from "./client.ts";

export type SweepSource = "messages" | "conversations";

/** The cursor, created at the table's current end on first use (no backfill). */
export async function sweepCursor(sql: Executor, source: SweepSource): Promise<number> {
  const table = sql(source);
  const [row] = await sql<{ last_id: number }[]>`
    INSERT INTO webhook_sweep_cursors (source, last_id)
    SELECT ${source}, COALESCE(max(id), 0) FROM ${table}
    ON CONFLICT (source) DO UPDATE SET last_id = webhook_sweep_cursors.last_id
    RETURNING last_id`;
  return Number(row!.last_id);
}

/**
 * With no enabled endpoint anywhere there is nothing to recover: move the
 * cursor to the table's end (an index read) instead of reading the rows.
 * True when it did so.
 */
export async function skipSweepWithoutEndpoints(
  sql: Executor,
  source: SweepSource,
): Promise<boolean> {
  const table = sql(source);
  const rows = await sql`
    UPDATE webhook_sweep_cursors
       SET last_id = GREATEST(last_id, (SELECT COALESCE(max(id), 0) FROM ${table}))
     WHERE source = ${source} AND NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled)
    RETURNING last_id`;
  return rows.length > 0;
}

export async function advanceSweepCursor(
  sql: Executor,
  source: SweepSource,
  lastId: number,
): Promise<void> {
  await sql`UPDATE webhook_sweep_cursors SET last_id = GREATEST(last_id, ${lastId})
             WHERE source = ${source}`;
}

export interface SweptMessage {
  id: number;
  workspace_id: number;
  public_id: string;
  role: string;
  content: string;
  created_at: Date;
  missing: boolean;
}

/** Messages after `afterId` stored before `settledBefore`; `missing` when a subscriber lacks its event. */
export async function messagesToSweep(
  sql: Executor,
  afterId: number,
  settledBefore: Date,
  limit: number,
): Promise<SweptMessage[]> {
  return await sql<SweptMessage[]>`
    SELECT m.id, m.workspace_id, c.public_id, m.role, m.content, m.created_at,
           (EXISTS (SELECT 1 FROM webhook_endpoints ep
                     WHERE ep.workspace_id = m.workspace_id AND ep.enabled
                       AND 'message.created' = ANY(ep.events) AND ep.created_at <= m.created_at)
            AND NOT EXISTS (SELECT 1 FROM webhook_events e
                             WHERE e.dedupe_key = 'message.created:' || m.id)) AS missing
      FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.id > ${afterId} AND m.created_at < ${settledBefore}
     ORDER BY m.id LIMIT ${limit}`;
}

export interface SweptConversation {
  id: number;
  workspace_id: number;
  public_id: string;
  chatbot_id: number;
  missing: boolean;
}

export async function conversationsToSweep(
  sql: Executor,
  afterId: number,
  settledBefore: Date,
  limit: number,
): Promise<SweptConversation[]> {
  return await sql<SweptConversation[]>`
    SELECT c.id, c.workspace_id, c.public_id, c.chatbot_id,
           (EXISTS (SELECT 1 FROM webhook_endpoints ep
                     WHERE ep.workspace_id = c.workspace_id AND ep.enabled
                       AND 'conversation.created' = ANY(ep.events)
                       AND ep.created_at <= c.created_at)
            AND NOT EXISTS (SELECT 1 FROM webhook_events e
                             WHERE e.dedupe_key = 'conversation.created:' || c.public_id)) AS missing
      FROM conversations c
     WHERE c.id > ${afterId} AND c.created_at < ${settledBefore}
     ORDER BY c.id LIMIT ${limit}`;
}
