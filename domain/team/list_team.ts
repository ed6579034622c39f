/** The Team screen: members with role, state and last activity, open invitations, seats. */
import type { Executor } from "../../db/client.ts";
import { listTeam as listMembers } from "../../db/team.ts";
import { listOpenInvitations } from "../../db/invitations.ts";
import { type Seats, seatsOf } from "./seats.ts";
import type { Role } from "../../db/invitations.ts";

export interface TeamView {
  members: {
    id: number;
    name: string;
    email: string;
    role: Role;
    state: "active" | "suspended";
    last_active_at: string | null;
    joined_at: string;
  }[];
  invitations: {
    id: number;
    email: string;
    role: Role;
    created_at: string;
    expires_at: string;
    state: "pending" | "expired";
  }[];
  seats: Seats;
}

export async function listTeam(sql: Executor, workspaceId: number, now: Date): Promise<TeamView> {
  const [members, invitations, seats] = await Promise.all([
    listMembers(sql, workspaceId),
    listOpenInvitations(sql, workspaceId),
    seatsOf(sql, workspaceId, now),
  ]);
  return {
    members: members.map((m) => ({
      id: Number(m.id),
      name: m.name,
      email: m.email,
      role: m.role,
      state: m.suspended ? "suspended" : "active",
      last_active_at: m.last_active_at?.toISOString() ?? null,
      joined_at: m.created_at.toISOString(),
    })),
    invitations: invitations.map((i) => ({
      id: Number(i.id),
      email: i.email,
      role: i.role,
      created_at: i.created_at.toISOString(),
      expires_at: i.expires_at.toISOString(),
      state: i.expires_at.getTime() > now.getTime() ? "pending" : "expired",
    })),
    seats,
  };
}
