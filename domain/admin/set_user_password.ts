/**
 * `user:password`: the operator sets a password for an e-mail (every session
 * of the account ends; sockets close at the realtime re-check, as the CLI has
 * no event bus), or prints a reset link (one hour, single use) for the person
 * to choose their own. Audited as the admin CLI.
 */
import { setUserPassword as setRow } from "../../db/users.ts";
import { hashPassword } from "../auth/passwords.ts";
import { recordAudit, systemActor } from "../audit/record_audit.ts";
import { revokeAndRecord } from "../account/end_sessions.ts";
import {
  appForRole,
  newResetSecret,
  RESET_LIFETIME_MS,
  resetLink,
  storeResetLink,
} from "../account/reset_links.ts";
import { Invalid } from "../errors.ts";
import { type AdminDeps, requireUser } from "./admin_deps.ts";

const ACTOR = systemActor("admin CLI");

export async function setUserPassword(
  deps: AdminDeps,
  input: { email: string; password?: string; link: boolean },
): Promise<Record<string, unknown>> {
  if (input.link === (input.password !== undefined)) {
    throw Invalid.field("password", "Give either --password <pw> or --link.");
  }
  if (input.password !== undefined && input.password.length < 8) {
    throw Invalid.field("password", "The password field must be at least 8 characters.");
  }
  const user = await requireUser(deps.sql, input.email);
  const workspaceId = Number(user.workspace_id);
  const userId = Number(user.id);
  if (input.password === undefined) {
    const { secret, hash } = await newResetSecret();
    await deps.sql.begin(async (tx) => {
      await storeResetLink(tx, { workspaceId, userId, hash, now: deps.now });
      await recordAudit(tx, {
        workspaceId,
        actor: ACTOR,
        action: "auth.password_reset_requested",
        target: { type: "user", id: userId },
        details: { by: "admin_cli" },
        now: deps.now,
      });
    });
    const base = deps.baseUrl ?? "http://localhost:8000";
    return {
      email: user.email,
      link: resetLink(base, appForRole(user.role), secret),
      expires_at: new Date(deps.now.getTime() + RESET_LIFETIME_MS).toISOString(),
    };
  }
  const passwordHash = await hashPassword(input.password);
  const ended = await deps.sql.begin(async (tx) => {
    await setRow(tx, workspaceId, userId, passwordHash);
    await recordAudit(tx, {
      workspaceId,
      actor: ACTOR,
      action: "auth.password_reset",
      target: { type: "user", id: userId },
      details: { by: "admin_cli" },
      now: deps.now,
    });
    return await revokeAndRecord(tx, {
      workspaceId,
      userId,
      actor: ACTOR,
      now: deps.now,
      reason: "password_reset",
    });
  });
  return { email: user.email, password_set: true, sessions_ended: ended.length };
}
