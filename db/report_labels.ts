/** Names for the report's breakdowns: the workspace's bots, members and tags by id. */
import type { Executor } from "./client.ts";

export interface ReportLabels {
  bots: { id: number; key: string; name: string }[];
  members: { id: number; name: string }[];
  tags: { id: number; name: string }[];
}

export async function reportLabels(sql: Executor, workspaceId: number): Promise<ReportLabels> {
  const [bots, members, tags] = await Promise.all([
    sql<ReportLabels["bots"]>`
      SELECT id::int, public_key AS key, name FROM chatbots
       WHERE workspace_id = ${workspaceId} ORDER BY id`,
    sql<ReportLabels["members"]>`
      SELECT id::int, name FROM users WHERE workspace_id = ${workspaceId} ORDER BY id`,
    sql<ReportLabels["tags"]>`
      SELECT id::int, name FROM tags WHERE workspace_id = ${workspaceId} ORDER BY id`,
  ]);
  return { bots, members, tags };
}
