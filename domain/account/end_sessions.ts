/**
 * Ending sessions (sign-in tokens): one, all but the caller's, or all of a
 * member's from Team. Each ended token's realtime subscriptions close on
 * every instance at once, as a sign-out's do (`token.revoked`, after commit).
 * One `auth.session_ended` row per call, in the same transaction.
 */
import type { AppDeps } from "../deps.ts";
import type { Executor } from "../../db/client.ts";
import { listSessions, revokeSessions, type SessionRow } from "../../db/sessions.ts";
import { findUser } from "../../db/users.ts";
import type { Auth } from "../auth/tokens.ts";
import { actorOf, type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { publishEvents } from "../events.ts";
import { Invalid, NotFound } from "../errors.ts";
import { roleRank } from "./member_rank.ts";

export type SessionApp = "dashboard" | "inbox" | "agent_app" | "portal";

/** The name the web inbox signs in under (inbox/src/login_view.ts). */
export const WEB_INBOX_DEVICE = "Web inbox";

export interface SessionView {
  id: number;
  app: SessionApp;
  device_name: string | null;
  signed_in_at: string;
  last_used_at: string | null;
  ip: string | null;
  current: boolean;
}

function appOf(row: SessionRow): SessionApp {
  if (row.ability === "agent") return row.device_name === WEB_INBOX_DEVICE ? "inbox" : "agent_app";
  return row.ability === "dashboard" ? "dashboard" : "portal";
}

export async function listOwnSessions(
  sql: Executor,
  auth: Auth,
  now: Date,
): Promise<{ data: SessionView[] }> {
  const rows = await listSessions(sql, auth.workspace.id, auth.user.id, now);
  return {
    data: rows.map((r) => ({
      id: r.id,
      app: appOf(r),
      device_name: r.device_name,
      signed_in_at: r.created_at.toISOString(),
      last_used_at: r.last_used_at?.toISOString() ?? null,
      ip: r.last_ip,
      current: r.id === auth.tokenId,
    })),
  };
}

/**
 * Revoke in `tx`, write the audit row; the caller publishes the returned ids
 * after commit with `announceEnded`.
 */
export async function revokeAndRecord(
  tx: Executor,
  r: {
    workspaceId: number;
    userId: number;
    actor: AuditActor;
    now: Date;
    only?: { id?: number; keep?: number };
    reason: string;
  },
): Promise<number[]> {
  const ids = await revokeSessions(tx, r.workspaceId, r.userId, r.now, r.only);
  if (ids.length > 0) {
    await recordAudit(tx, {
      workspaceId: r.workspaceId,
      actor: r.actor,
      action: "auth.session_ended",
      target: { type: "user", id: r.userId },
      details: { sessions: ids.length, session_ids: ids.map(String), reason: r.reason },
      now: r.now,
    });
  }
  return ids;
}

/** Close the ended tokens' sockets on every instance. */
export async function announceEnded(
  deps: Pick<AppDeps, "bus" | "log">,
  workspaceId: number,
  ids: number[],
): Promise<void> {
  await publishEvents(
    deps,
    ids.map((tokenId) => ({ type: "token.revoked", workspaceId, tokenId })),
  );
}

/** The caller ends one of their sessions (404 when it is not theirs or already ended), or all others. */
export async function endOwnSessions(
  deps: Pick<AppDeps, "sql" | "bus" | "log">,
  auth: Auth,
  which: { id: number } | "others",
  ip: string,
  now: Date,
): Promise<{ ended: number }> {
  const ids = await deps.sql.begin((tx) =>
    revokeAndRecord(tx, {
      workspaceId: auth.workspace.id,
      userId: auth.user.id,
      actor: actorOf(auth, ip),
      now,
      only: which === "others" ? { keep: auth.tokenId } : { id: which.id },
      reason: which === "others" ? "signed_out_elsewhere" : "ended_by_user",
    })
  );
  if (which !== "others" && ids.length === 0) throw new NotFound("No such session.");
  await announceEnded(deps, auth.workspace.id, ids);
  return { ended: ids.length };
}

/** An owner or administrator ends every session of a member (not their own: see above). */
export async function endMemberSessions(
  deps: Pick<AppDeps, "sql" | "bus" | "log">,
  auth: Auth,
  userId: number,
  ip: string,
  now: Date,
): Promise<{ ended: number }> {
  const ids = await deps.sql.begin(async (tx) => {
    const member = await findUser(tx, auth.workspace.id, userId);
    if (!member) throw new NotFound("No teammate with that id.");
    if (Number(member.id) === auth.user.id) {
      throw Invalid.field("user", "End your own sessions from your account's Sessions.");
    }
    if (roleRank(member.role) > roleRank(auth.user.role)) {
      throw Invalid.field("user", "Only an owner can end an owner's sessions.");
    }
    return await revokeAndRecord(tx, {
      workspaceId: auth.workspace.id,
      userId,
      actor: actorOf(auth, ip),
      now,
      reason: "ended_by_admin",
    });
  });
  await announceEnded(deps, auth.workspace.id, ids);
  return { ended: ids.length };
}
