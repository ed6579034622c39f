/**
 * Who may act on whose account from Team (end sessions, issue a reset link):
 * an administrator may for administrators, agents and viewers, never for an
 * owner, so a reset link cannot lift an administrator into an owner's account.
 */
import type { Role } from "../auth/permissions.ts";

const RANK: Record<Role, number> = { viewer: 0, agent: 0, administrator: 1, owner: 2 };

export function roleRank(role: Role): number {
  return RANK[role];
}
