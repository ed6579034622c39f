/**
 * Seats: owners, administrators and agents who can sign in, plus invitations
 * for those roles still usable, against the plan's `agent_seats`. Viewers
 * take no seat. Checked under a per-workspace lock inside the caller's
 * transaction, so two invitations cannot both take the last seat.
 */
import type { Executor } from "../../db/client.ts";
import { countSeatsTaken } from "../../db/daily_series.ts";
import { countSeatInvitations } from "../../db/invitations.ts";
import { findPlanOfWorkspace } from "../../db/workspaces.ts";
import { Invalid } from "../errors.ts";

export interface Seats {
  used: number;
  limit: number;
}

export async function seatsOf(sql: Executor, workspaceId: number, now: Date): Promise<Seats> {
  const [members, invited, plan] = await Promise.all([
    countSeatsTaken(sql, workspaceId),
    countSeatInvitations(sql, workspaceId, now),
    findPlanOfWorkspace(sql, workspaceId),
  ]);
  return { used: members + invited, limit: plan.agent_seats };
}

/** Throws 422 on `field` when one more seat would pass the plan's limit. */
export async function requireFreeSeat(
  tx: Executor,
  workspaceId: number,
  now: Date,
  field: string,
): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(7241004, ${workspaceId}::int)`;
  const seats = await seatsOf(tx, workspaceId, now);
  if (seats.used >= seats.limit) {
    throw Invalid.field(
      field,
      `All ${seats.limit} seats of your plan are taken (invitations included). Remove a ` +
        "teammate, revoke an invitation or invite a viewer, who takes no seat.",
    );
  }
}

/** Roles that take a seat. */
export const takesSeat = (role: string) => role !== "viewer";
