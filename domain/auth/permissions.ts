/**
 * The role-to-permission matrix, enforced here and nowhere else
 * (documented in docs/roles.md).
 */

export type Role = "owner" | "administrator" | "agent" | "viewer";
export type Permission =
  | "manage-content"
  | "handle-conversations"
  | "manage-chatbots"
  | "manage-workspace";

export const ROLES: readonly Role[] = ["owner", "administrator", "agent", "viewer"];

const MATRIX: Record<Role, readonly Permission[]> = {
  owner: ["manage-content", "handle-conversations", "manage-chatbots", "manage-workspace"],
  administrator: ["manage-content", "handle-conversations", "manage-chatbots", "manage-workspace"],
  agent: ["handle-conversations"],
  viewer: [],
};

export function can(role: Role, permission: Permission): boolean {
  return MATRIX[role].includes(permission);
}

export function roleDisplayName(role: Role): string {
  return role.charAt(0).toUpperCase() + role.slice(1);
}
