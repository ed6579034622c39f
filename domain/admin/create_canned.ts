/**
 * Add a canned reply, shared or owned by one user (`--owner`); keyed by
 * title, so repeating it updates the text, as seeding does.
 */
import { upsertCanned } from "../../db/canned_replies.ts";
import { Invalid } from "../errors.ts";
import { type AdminDeps, requireUser, requireWorkspace } from "./admin_deps.ts";

export interface CreatedCanned {
  id: number;
  workspace: string;
  title: string;
  shortcut: string | null;
  body: string;
  owner: string | null;
}

export async function createCanned(
  deps: AdminDeps,
  input: { workspace: string; title: string; body: string; shortcut?: string; owner?: string },
): Promise<CreatedCanned> {
  const title = input.title.trim();
  if (!title || title.length > 120) {
    throw Invalid.field("title", "The title field is required (up to 120 characters).");
  }
  if (!input.body.trim()) throw Invalid.field("body", "The body field is required.");
  const ws = await requireWorkspace(deps.sql, input.workspace);
  let ownerId: number | null = null;
  if (input.owner) {
    const owner = await requireUser(deps.sql, input.owner);
    if (owner.workspace_id !== ws.id) {
      throw Invalid.field("owner", `${input.owner} is not a user of ${ws.slug}.`);
    }
    ownerId = owner.id;
  }
  const row = await upsertCanned(deps.sql, ws.id, {
    title,
    shortcut: input.shortcut ?? null,
    body: input.body,
    ownerUserId: ownerId,
  });
  return {
    id: row.id,
    workspace: ws.slug,
    title: row.title,
    shortcut: row.shortcut,
    body: row.body,
    owner: input.owner ?? null,
  };
}
