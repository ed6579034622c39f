/** usage_counters: messages counted against the plan's monthly quota. */
import type { Executor } from "./client.ts";

/** The workspace's plan limit: null when unlimited. */
export async function monthlyMessageLimit(
  sql: Executor,
  workspaceId: number,
): Promise<number | null> {
  const [row] = await sql<{ l: number | null }[]>`
    SELECT p.monthly_message_limit AS l FROM workspaces w JOIN plans p ON p.id = w.plan_id
     WHERE w.id = ${workspaceId}`;
  return row?.l ?? null;
}

/**
 * The quota rule as CTEs, for any statement that takes a message: `lim` reads
 * the plan's limit and `quota` adds one to the month's counter unless that
 * would pass it, returning `used` only when the message was taken. The
 * conflicting row is locked by the upsert, so two concurrent statements
 * cannot both take the last unit.
 */
export function quotaCtes(
  sql: Executor,
  workspaceId: number,
  month: string,
  /** A CTE that must have a row for the quota to be taken (db/first_turn.ts). */
  onlyWith?: ReturnType<Executor>,
) {
  return sql`
    lim AS (
      SELECT p.monthly_message_limit AS l FROM workspaces w JOIN plans p ON p.id = w.plan_id
             ${onlyWith ? sql`, ${onlyWith}` : sql``}
       WHERE w.id = ${workspaceId}),
    quota AS (
      INSERT INTO usage_counters (workspace_id, month, messages_used)
      SELECT ${workspaceId}, ${month}, 1 FROM lim WHERE lim.l IS NULL OR lim.l > 0
      ON CONFLICT (workspace_id, month) DO UPDATE
         SET messages_used = usage_counters.messages_used + 1
       WHERE usage_counters.messages_used < COALESCE((SELECT l FROM lim), 2147483647)
      RETURNING messages_used AS used)`;
}

/** Add one message to the month's counter within the plan's limit; null when refused. */
export async function incrementWithinLimit(
  sql: Executor,
  workspaceId: number,
  month: string,
): Promise<number | null> {
  const [row] = await sql<{ used: number }[]>`
    WITH ${quotaCtes(sql, workspaceId, month)}
    SELECT used FROM quota`;
  return row?.used ?? null;
}

export async function messagesUsed(
  sql: Executor,
  workspaceId: number,
  month: string,
): Promise<number> {
  const [row] = await sql<{ used: number }[]>`
    SELECT messages_used AS used FROM usage_counters
     WHERE workspace_id = ${workspaceId} AND month = ${month}`;
  return row?.used ?? 0;
}
