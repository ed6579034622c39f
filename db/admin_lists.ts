/**
 * The operator's lists for the admin CLI: every workspace, or one
 * workspace's users, tokens and bots, one query each. No secret column is
 * ever selected (password hashes, token hashes, key ciphertexts).
 */
import type { Executor } from "./client.ts";

export interface WorkspaceListRow {
  id: number;
  name: string;
  slug: string;
  plan: string;
  portal_enabled: boolean;
  suspended: boolean;
  users: number;
  chatbots: number;
  created_at: Date;
}

export function listWorkspaces(sql: Executor): Promise<WorkspaceListRow[]> {
  return sql<WorkspaceListRow[]>`
    SELECT w.id::int AS id, w.name, w.slug, p.code AS plan, w.portal_enabled, w.suspended,
      (SELECT count(*)::int FROM users u WHERE u.workspace_id = w.id) AS users,
      (SELECT count(*)::int FROM chatbots c WHERE c.workspace_id = w.id) AS chatbots,
      w.created_at
    FROM workspaces w JOIN plans p ON p.id = w.plan_id
    ORDER BY w.id`;
}

export interface UserListRow {
  id: number;
  workspace: string;
  name: string;
  email: string;
  role: string;
  suspended: boolean;
  created_at: Date;
}

export function listUsers(sql: Executor, workspaceId: number | null): Promise<UserListRow[]> {
  return sql<UserListRow[]>`
    SELECT u.id::int AS id, w.slug AS workspace, u.name, u.email, u.role, u.suspended, u.created_at
    FROM users u JOIN workspaces w ON w.id = u.workspace_id
    WHERE ${workspaceId}::bigint IS NULL OR u.workspace_id = ${workspaceId}
    ORDER BY u.workspace_id, u.id`;
}

export interface TokenListRow {
  id: number;
  workspace: string;
  user: string;
  name: string;
  ability: string;
  device_name: string | null;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

export function listTokens(
  sql: Executor,
  filter: { workspaceId: number | null; userId: number | null },
): Promise<TokenListRow[]> {
  return sql<TokenListRow[]>`
    SELECT t.id::int AS id, w.slug AS workspace, u.email AS user, t.name, t.ability,
      t.device_name, t.expires_at, t.revoked_at, t.last_used_at, t.created_at
    FROM access_tokens t
    JOIN users u ON u.id = t.user_id
    JOIN workspaces w ON w.id = t.workspace_id
    WHERE (${filter.workspaceId}::bigint IS NULL OR t.workspace_id = ${filter.workspaceId})
      AND (${filter.userId}::bigint IS NULL OR t.user_id = ${filter.userId})
    ORDER BY t.id`;
}

export interface ChatbotListRow {
  id: number;
  workspace: string;
  public_key: string;
  name: string;
  provider: string;
  model: string;
  is_active: boolean;
  created_at: Date;
}

export function listAllChatbots(
  sql: Executor,
  workspaceId: number | null,
): Promise<ChatbotListRow[]> {
  return sql<ChatbotListRow[]>`
    SELECT c.id::int AS id, w.slug AS workspace, c.public_key, c.name, c.provider, c.model,
      c.is_active, c.created_at
    FROM chatbots c JOIN workspaces w ON w.id = c.workspace_id
    WHERE ${workspaceId}::bigint IS NULL OR c.workspace_id = ${workspaceId}
    ORDER BY c.workspace_id, c.id`;
}

export interface TagListRow {
  id: number;
  workspace: string;
  name: string;
  color: string;
  conversations: number;
}

export function listTags(sql: Executor, workspaceId: number | null): Promise<TagListRow[]> {
  return sql<TagListRow[]>`
    SELECT t.id::int AS id, w.slug AS workspace, t.name, t.color,
      (SELECT count(*)::int FROM conversation_tags ct WHERE ct.tag_id = t.id) AS conversations
    FROM tags t JOIN workspaces w ON w.id = t.workspace_id
    WHERE ${workspaceId}::bigint IS NULL OR t.workspace_id = ${workspaceId}
    ORDER BY t.workspace_id, t.name`;
}

export interface CannedListRow {
  id: number;
  workspace: string;
  title: string;
  shortcut: string | null;
  body: string;
  /** The agent who owns a personal reply; null: shared with the workspace. */
  owner: string | null;
  use_count: number;
}

export function listCanned(sql: Executor, workspaceId: number | null): Promise<CannedListRow[]> {
  return sql<CannedListRow[]>`
    SELECT c.id::int AS id, w.slug AS workspace, c.title, c.shortcut, c.body,
      u.email AS owner, c.use_count
    FROM canned_replies c JOIN workspaces w ON w.id = c.workspace_id
    LEFT JOIN users u ON u.id = c.owner_user_id
    WHERE ${workspaceId}::bigint IS NULL OR c.workspace_id = ${workspaceId}
    ORDER BY c.workspace_id, c.title`;
}
