/**
 * The admin CLI's lists: workspaces, and (all, or one workspace's) users,
 * tokens, chatbots, tags and canned replies. Read-only views without secrets: no password or token
 * hashes, and a token is shown by id and name, never by its text.
 */
import {
  type CannedListRow,
  type ChatbotListRow,
  listAllChatbots,
  listCanned,
  listTags,
  listTokens,
  listUsers,
  listWorkspaces,
  type TagListRow,
  type TokenListRow,
  type UserListRow,
  type WorkspaceListRow,
} from "../../db/admin_lists.ts";
import { type AdminDeps, requireUser, requireWorkspace } from "./admin_deps.ts";

export function listAllWorkspaces(deps: AdminDeps): Promise<WorkspaceListRow[]> {
  return listWorkspaces(deps.sql);
}

async function workspaceIdOf(deps: AdminDeps, slug: string | undefined): Promise<number | null> {
  return slug === undefined ? null : (await requireWorkspace(deps.sql, slug)).id;
}

export async function listWorkspaceUsers(
  deps: AdminDeps,
  filter: { workspace?: string },
): Promise<UserListRow[]> {
  return listUsers(deps.sql, await workspaceIdOf(deps, filter.workspace));
}

/** Tokens with their state: `active`, `revoked` or `expired` at `deps.now`. */
export async function listWorkspaceTokens(
  deps: AdminDeps,
  filter: { workspace?: string; email?: string },
): Promise<(TokenListRow & { state: "active" | "revoked" | "expired" })[]> {
  const rows = await listTokens(deps.sql, {
    workspaceId: await workspaceIdOf(deps, filter.workspace),
    userId: filter.email === undefined ? null : (await requireUser(deps.sql, filter.email)).id,
  });
  return rows.map((t) => ({
    ...t,
    state: t.revoked_at ? "revoked" : t.expires_at <= deps.now ? "expired" : "active",
  }));
}

export async function listWorkspaceChatbots(
  deps: AdminDeps,
  filter: { workspace?: string },
): Promise<ChatbotListRow[]> {
  return listAllChatbots(deps.sql, await workspaceIdOf(deps, filter.workspace));
}

export async function listWorkspaceTags(
  deps: AdminDeps,
  filter: { workspace?: string },
): Promise<TagListRow[]> {
  return listTags(deps.sql, await workspaceIdOf(deps, filter.workspace));
}

export async function listWorkspaceCanned(
  deps: AdminDeps,
  filter: { workspace?: string },
): Promise<CannedListRow[]> {
  return listCanned(deps.sql, await workspaceIdOf(deps, filter.workspace));
}
