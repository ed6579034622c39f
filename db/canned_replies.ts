/** canned_replies: saved answers, shared (no owner) or owned by one agent. */
import type { Executor } from "./client.ts";

export interface CannedRow {
  id: number;
  title: string;
  shortcut: string | null;
  body: string;
  owner_user_id: number | null;
  use_count: number;
}

export async function upsertCanned(
  sql: Executor,
  workspaceId: number,
  c: { title: string; shortcut: string | null; body: string; ownerUserId: number | null },
): Promise<CannedRow> {
  const [row] = await sql<CannedRow[]>`
    INSERT INTO canned_replies (workspace_id, title, shortcut, body, owner_user_id)
    VALUES (${workspaceId}, ${c.title}, ${c.shortcut}, ${c.body}, ${c.ownerUserId})
    ON CONFLICT (workspace_id, title) DO UPDATE SET shortcut = EXCLUDED.shortcut,
      body = EXCLUDED.body, owner_user_id = EXCLUDED.owner_user_id
    RETURNING id, title, shortcut, body, owner_user_id, use_count`;
  return row!;
}

/** The shared replies and this agent's own, most used first. */
export async function listCannedFor(
  sql: Executor,
  workspaceId: number,
  userId: number,
): Promise<CannedRow[]> {
  return await sql<CannedRow[]>`
    SELECT id, title, shortcut, body, owner_user_id, use_count FROM canned_replies
     WHERE workspace_id = ${workspaceId} AND (owner_user_id IS NULL OR owner_user_id = ${userId})
     ORDER BY use_count DESC, title, id`;
}

export async function findCanned(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<CannedRow | null> {
  const [row] = await sql<CannedRow[]>`
    SELECT id, title, shortcut, body, owner_user_id, use_count FROM canned_replies
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row ?? null;
}

export async function countCannedUse(sql: Executor, workspaceId: number, id: number) {
  await sql`UPDATE canned_replies SET use_count = use_count + 1
             WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}
