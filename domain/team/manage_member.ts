/**
 * Changes to a member from the Team screen: role, suspension, removal. The
 * workspace always keeps an owner who can sign in (the last one can be
 * neither demoted, suspended nor removed), nobody changes or removes
 * themselves here, and a role that takes a seat needs a free one.
 * Suspension takes effect at once: every token of the member answers 403.
 * Every change publishes `member.changed` after it commits, so each instance
 * ends at once the realtime subscriptions the member may no longer hold (a
 * viewer leaves the visitors' shared screens; a suspended or removed
 * member leaves everything). Making someone an owner, and changing,
 * suspending or removing an owner, is for owners only: an administrator
 * cannot promote a colleague above themselves. Each change writes its audit
 * row in its transaction.
 */
import type { AppDeps } from "../deps.ts";
import { findUser, setUserSuspended, type UserRow } from "../../db/users.ts";
import { deleteUser, lockActiveOwners, setUserRole } from "../../db/team.ts";
import type { Auth } from "../auth/tokens.ts";
import { actorOf, recordAudit } from "../audit/record_audit.ts";
import type { AuditAction } from "../audit/audit_actions.ts";
import { Forbidden, Invalid, NotFound } from "../errors.ts";
import { publishEvent } from "../events.ts";
import { requireFreeSeat, takesSeat } from "./seats.ts";

type Change =
  | { kind: "role"; role: UserRow["role"] }
  | { kind: "suspend"; suspended: boolean }
  | { kind: "remove" };

const field = (c: Change) =>
  c.kind === "role" ? "role" : c.kind === "suspend" ? "suspended" : "user";

export async function changeMember(
  deps: Pick<AppDeps, "sql" | "bus" | "log">,
  auth: Auth,
  userId: number,
  change: Change,
  now: Date,
  ip: string | null = null,
): Promise<void> {
  const ws = auth.workspace.id;
  await deps.sql.begin(async (tx) => {
    const member = await findUser(tx, ws, userId);
    if (!member) throw new NotFound("No teammate with that id.");
    if (Number(member.id) === auth.user.id) {
      throw Invalid.field(field(change), "You cannot change or remove your own account here.");
    }
    const owners = await lockActiveOwners(tx, ws);
    const leavesOwners = member.role === "owner" && !member.suspended &&
      (change.kind === "remove" || (change.kind === "suspend" && change.suspended) ||
        (change.kind === "role" && change.role !== "owner"));
    if (leavesOwners && owners.length <= 1) {
      throw Invalid.field(field(change), "The workspace's last owner stays an owner.");
    }
    const touchesOwner = member.role === "owner" ||
      (change.kind === "role" && change.role === "owner");
    if (touchesOwner && auth.user.role !== "owner") {
      throw new Forbidden("Only an owner can make, change, suspend or remove an owner.");
    }
    if (change.kind === "role") {
      if (takesSeat(change.role) && !takesSeat(member.role) && !member.suspended) {
        await requireFreeSeat(tx, ws, now, "role");
      }
      await setUserRole(tx, ws, userId, change.role);
    } else if (change.kind === "suspend") {
      if (!change.suspended && takesSeat(member.role) && member.suspended) {
        await requireFreeSeat(tx, ws, now, "suspended");
      }
      await setUserSuspended(tx, ws, userId, change.suspended);
    } else {
      await deleteUser(tx, ws, userId);
    }
    await recordAudit(tx, {
      workspaceId: ws,
      actor: actorOf(auth, ip),
      action: auditAction(change),
      target: { type: "user", id: userId },
      details: change.kind === "role"
        ? { email: member.email, from: member.role, to: change.role }
        : { email: member.email, role: member.role },
      now,
    });
  });
  await publishEvent(deps, {
    type: "member.changed",
    workspaceId: ws,
    userId,
    change: change.kind === "role"
      ? "role"
      : change.kind === "remove"
      ? "removed"
      : change.suspended
      ? "suspended"
      : "restored",
  });
}

function auditAction(change: Change): AuditAction {
  if (change.kind === "role") return "team.role_changed";
  if (change.kind === "remove") return "team.member_removed";
  return change.suspended ? "team.member_suspended" : "team.member_reinstated";
}
