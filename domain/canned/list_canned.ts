/** The canned replies an agent may use: the shared ones and their own, most used first. */
import type { Executor } from "../../db/client.ts";
import { listCannedFor } from "../../db/canned_replies.ts";

export interface CannedView {
  id: number;
  title: string;
  shortcut: string | null;
  body: string;
  shared: boolean;
}

export async function listCanned(
  sql: Executor,
  actor: { workspaceId: number; userId: number },
): Promise<{ canned: CannedView[] }> {
  const rows = await listCannedFor(sql, actor.workspaceId, actor.userId);
  return {
    canned: rows.map((r) => ({
      id: r.id,
      title: r.title,
      shortcut: r.shortcut,
      body: r.body,
      shared: r.owner_user_id === null,
    })),
  };
}
