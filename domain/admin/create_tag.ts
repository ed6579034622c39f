/** Add a tag to a workspace's catalogue; keyed by name, so repeating it updates the colour. */
import { upsertTag } from "../../db/tags.ts";
import { Invalid } from "../errors.ts";
import { type AdminDeps, requireWorkspace } from "./admin_deps.ts";

export async function createTag(
  deps: AdminDeps,
  input: { workspace: string; name: string; color?: string },
): Promise<{ id: number; workspace: string; name: string; color: string }> {
  const name = input.name.trim();
  if (!name || name.length > 50) {
    throw Invalid.field("name", "The name field is required (up to 50 characters).");
  }
  const color = input.color ?? "#6b7280";
  if (!/^#[0-9a-fA-F]{6}$/.test(color)) {
    throw Invalid.field("color", "The color field must be a hex colour such as #f59e0b.");
  }
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const tag = await upsertTag(deps.sql, ws.id, name, color);
  return { id: tag.id, workspace: ws.slug, name: tag.name, color: tag.color };
}
