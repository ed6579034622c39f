/** Suspend or restore a workspace: every token of it answers 403 while suspended. */
import { setWorkspaceSuspended as setRow } from "../../db/workspaces.ts";
import { type AdminDeps, requireWorkspace } from "./admin_deps.ts";

export async function setWorkspaceSuspended(
  deps: AdminDeps,
  input: { slug: string; suspended: boolean },
): Promise<{ slug: string; suspended: boolean }> {
  const ws = await requireWorkspace(deps.sql, input.slug);
  await setRow(deps.sql, ws.id, input.suspended);
  return { slug: ws.slug, suspended: input.suspended };
}
