/**
 * Per-day figures of a workspace for the dashboard's charts: messages by
 * author and conversations resolved by the AI or by a human, in UTC days.
 * Each is one grouped query on an index that starts with the workspace
 * (messages_workspace_time_idx, conversations_workspace_idx).
 */
import type { Executor } from "./client.ts";

export interface DailyMessages {
  day: string;
  visitor: number;
  ai: number;
  human: number;
}

export async function dailyMessages(
  sql: Executor,
  workspaceId: number,
  since: Date,
  until: Date,
): Promise<DailyMessages[]> {
  return await sql<DailyMessages[]>`
    SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
           count(*) FILTER (WHERE role = 'visitor')::int AS visitor,
           count(*) FILTER (WHERE role = 'assistant')::int AS ai,
           count(*) FILTER (WHERE role = 'agent')::int AS human
      FROM messages
     WHERE workspace_id = ${workspaceId} AND created_at >= ${since} AND created_at < ${until}
     GROUP BY 1`;
}

export interface DailyResolutions {
  day: string;
  ai: number;
  human: number;
}

/**
 * Resolved by a human: closed by an agent (`resolved_at`, not by the AI), on
 * the day it was closed. Resolved by the AI: closed as resolved by the AI, or
 * left with the bot, never handed off, no human reply, an AI reply last seen,
 * and quiet since `quietBefore`, on the day of its last message.
 */
export async function dailyResolutions(
  sql: Executor,
  workspaceId: number,
  since: Date,
  until: Date,
  quietBefore: Date,
): Promise<DailyResolutions[]> {
  return await sql<DailyResolutions[]>`
    SELECT day, count(*) FILTER (WHERE by_ai)::int AS ai,
           count(*) FILTER (WHERE NOT by_ai)::int AS human
      FROM (
        SELECT to_char(date_trunc('day', resolved_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
               resolved_by_ai AS by_ai
          FROM conversations
         WHERE workspace_id = ${workspaceId} AND status = 'closed'
           AND resolved_at >= ${since} AND resolved_at < ${until}
        UNION ALL
        SELECT to_char(date_trunc('day', c.last_message_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD'),
               true
          FROM conversations c
         WHERE c.workspace_id = ${workspaceId} AND c.status = 'bot'
           AND c.handoff_state = 'bot_active'
           AND c.last_message_at >= ${since} AND c.last_message_at < ${quietBefore}
           AND EXISTS (SELECT 1 FROM messages m
                        WHERE m.conversation_id = c.id AND m.role = 'assistant')
           AND NOT EXISTS (SELECT 1 FROM messages m
                            WHERE m.conversation_id = c.id AND m.role = 'agent')
      ) r
     GROUP BY day`;
}

/** Users holding a seat: everyone but the read-only viewers, suspended ones excluded. */
export async function countSeatsTaken(sql: Executor, workspaceId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM users
     WHERE workspace_id = ${workspaceId} AND role <> 'viewer' AND NOT suspended`;
  return row!.n;
}
