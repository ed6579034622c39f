/**
 * The role-to-permission matrix, enforced here and nowhere else
 * (documented in docs/roles.md).
 */

export type Role = "owner" | "administrator" | "agent" | "viewer";
export type Permission =
  | "manage-content"
  | "handle-conversations"
  | "manage-chatbots"
  | "manage-workspace"
  /** Sign in to the owners' dashboard (/dashboard); every change there needs one of the above. */
  | "view-dashboard";

export const ROLES: readonly Role[] = ["owner", "administrator", "agent", "viewer"];

const MATRIX: Record<Role, readonly Permission[]> = {
  owner: [
    "manage-content",
    "handle-conversations",
    "manage-chatbots",
    "manage-workspace",
    "view-dashboard",
  ],
  administrator: [
    "manage-content",
    "handle-conversations",
    "manage-chatbots",
    "manage-workspace",
    "view-dashboard",
  ],
  agent: ["handle-conversations"],
  viewer: ["view-dashboard"],
};

export function can(role: Role, permission: Permission): boolean {
  return MATRIX[role].includes(permission);
}

export function roleDisplayName(role: Role): string {
  return role.charAt(0).toUpperCase() + role.slice(1);
}
