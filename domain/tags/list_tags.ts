/** The workspace's tag catalogue, by name. */
import type { Executor } from "../../db/client.ts";
import { listTags as listTagRows, type TagRow } from "../../db/tags.ts";

export async function listTags(sql: Executor, workspaceId: number): Promise<{ tags: TagRow[] }> {
  return { tags: await listTagRows(sql, workspaceId) };
}
