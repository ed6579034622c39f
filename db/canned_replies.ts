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
