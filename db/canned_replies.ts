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

/** The workspace's shared replies (no owner), by title. */
export async function listSharedCanned(sql: Executor, workspaceId: number): Promise<CannedRow[]> {
  return await sql<CannedRow[]>`
    SELECT id, title, shortcut, body, owner_user_id, use_count FROM canned_replies
     WHERE workspace_id = ${workspaceId} AND owner_user_id IS NULL
     ORDER BY title, id`;
}

export interface CannedFields {
  title: string;
  shortcut: string | null;
  body: string;
}

/** A new shared reply, or null when the workspace already has a reply of that title. */
export async function insertSharedCanned(
  sql: Executor,
  workspaceId: number,
  c: CannedFields,
): Promise<CannedRow | null> {
  const [row] = await sql<CannedRow[]>`
    INSERT INTO canned_replies (workspace_id, title, shortcut, body, owner_user_id)
    VALUES (${workspaceId}, ${c.title}, ${c.shortcut}, ${c.body}, NULL)
    ON CONFLICT (workspace_id, title) DO NOTHING
    RETURNING id, title, shortcut, body, owner_user_id, use_count`;
  return row ?? null;
}

/**
 * Edits a shared reply; null when it is not one of the workspace's shared
 * replies, or when another reply already has the title (the caller tells which).
 */
export async function updateSharedCanned(
  sql: Executor,
  workspaceId: number,
  id: number,
  c: CannedFields,
): Promise<CannedRow | null> {
  const [row] = await sql<CannedRow[]>`
    UPDATE canned_replies SET title = ${c.title}, shortcut = ${c.shortcut}, body = ${c.body}
     WHERE workspace_id = ${workspaceId} AND id = ${id} AND owner_user_id IS NULL
       AND NOT EXISTS (SELECT 1 FROM canned_replies o
                        WHERE o.workspace_id = ${workspaceId} AND o.title = ${c.title}
                          AND o.id <> ${id})
    RETURNING id, title, shortcut, body, owner_user_id, use_count`;
  return row ?? null;
}

export async function deleteSharedCanned(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<boolean> {
  const rows = await sql`
    DELETE FROM canned_replies
     WHERE workspace_id = ${workspaceId} AND id = ${id} AND owner_user_id IS NULL
    RETURNING 1`;
  return rows.length > 0;
}
