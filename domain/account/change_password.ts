/**
 * A person changes their own password, giving the current one (422 on
 * `current_password` when wrong). Every OTHER session of theirs ends
 * (dashboard, inbox, agent apps, portal; their sockets close at once); the
 * one making the change keeps working. API tokens are not sessions and stay.
 * Wrong current passwords count in the shared login lockout, so this door is
 * no faster a way to guess a password than the sign-in form.
 */
import type { AppDeps } from "../deps.ts";
import { findUser, setUserPassword } from "../../db/users.ts";
import type { Auth } from "../auth/tokens.ts";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import { beginLoginAttempt, type LockoutPolicy } from "../auth/login_lockout.ts";
import { actorOf, recordAudit } from "../audit/record_audit.ts";
import { Invalid, NotFound } from "../errors.ts";
import { announceEnded, revokeAndRecord } from "./end_sessions.ts";

export async function changePassword(
  deps: Pick<AppDeps, "sql" | "kv" | "bus" | "log">,
  lockout: LockoutPolicy,
  auth: Auth,
  input: { currentPassword: string; newPassword: string },
  ip: string,
  now: Date,
): Promise<{ sessions_ended: number }> {
  const user = await findUser(deps.sql, auth.workspace.id, auth.user.id);
  if (!user) throw new NotFound("No such user.");
  const attempt = await beginLoginAttempt(deps.kv, lockout, user.email, ip);
  let ok: boolean;
  try {
    ok = await verifyPassword(input.currentPassword, user.password_hash);
  } catch (err) {
    await attempt.abandoned();
    throw err;
  }
  if (!ok) {
    await attempt.failed();
    throw Invalid.field("current_password", "The current password is not correct.");
  }
  await attempt.succeeded();
  const passwordHash = await hashPassword(input.newPassword);
  const actor = actorOf(auth, ip);
  const ended = await deps.sql.begin(async (tx) => {
    await setUserPassword(tx, auth.workspace.id, auth.user.id, passwordHash);
    await recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor,
      action: "auth.password_changed",
      target: { type: "user", id: auth.user.id },
      now,
    });
    return await revokeAndRecord(tx, {
      workspaceId: auth.workspace.id,
      userId: auth.user.id,
      actor,
      now,
      only: { keep: auth.tokenId },
      reason: "password_changed",
    });
  });
  await announceEnded(deps, auth.workspace.id, ended);
  return { sessions_ended: ended.length };
}
