/**
 * Using a reset link: the new password is set, the link is spent and every
 * session of the user ends (their sockets close at once), in one
 * transaction, so a second use finds nothing. Wrong links count in the shared
 * login lockout under the caller's address, so links cannot be guessed
 * faster than passwords.
 */
import type { AppDeps } from "../deps.ts";
import { spendPasswordReset } from "../../db/password_resets.ts";
import { findUser, setUserPassword } from "../../db/users.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { hashPassword } from "../auth/passwords.ts";
import { beginLoginAttempt, type LockoutPolicy } from "../auth/login_lockout.ts";
import { anonymousActor, recordAudit } from "../audit/record_audit.ts";
import { Invalid } from "../errors.ts";
import { announceEnded, revokeAndRecord } from "./end_sessions.ts";
import { appForRole } from "./reset_links.ts";

const GONE = "This reset link is not valid: it was used, replaced or has expired. " +
  "Ask for a new one.";
// The lockout's subject for link attempts from one address (no e-mail is known yet).
const LINK_SUBJECT = "password-reset-link";

export async function resetPassword(
  deps: Pick<AppDeps, "sql" | "kv" | "bus" | "log">,
  lockout: LockoutPolicy,
  input: { secret: string; password: string; ip: string; now: Date },
): Promise<{ message: string; email: string; sign_in_at: string }> {
  const attempt = await beginLoginAttempt(deps.kv, lockout, LINK_SUBJECT, input.ip);
  const passwordHash = await hashPassword(input.password);
  const hash = await sha256Hex(input.secret);
  let done;
  try {
    done = await deps.sql.begin(async (tx) => {
      const reset = await spendPasswordReset(tx, hash, input.now);
      if (!reset) return null;
      const user = await findUser(tx, reset.workspace_id, reset.user_id);
      if (!user) return null;
      await setUserPassword(tx, reset.workspace_id, reset.user_id, passwordHash);
      const actor = {
        ...anonymousActor(`${user.name} <${user.email}>`, input.ip),
        userId: reset.user_id,
      };
      await recordAudit(tx, {
        workspaceId: reset.workspace_id,
        actor,
        action: "auth.password_reset",
        target: { type: "user", id: reset.user_id },
        now: input.now,
      });
      const ended = await revokeAndRecord(tx, {
        workspaceId: reset.workspace_id,
        userId: reset.user_id,
        actor,
        now: input.now,
        reason: "password_reset",
      });
      return { user, ended };
    });
  } catch (err) {
    await attempt.abandoned();
    throw err;
  }
  if (!done) {
    await attempt.failed();
    throw Invalid.field("token", GONE);
  }
  await attempt.succeeded();
  await announceEnded(deps, Number(done.user.workspace_id), done.ended);
  return {
    message: "Your password is changed. Sign in with it.",
    email: done.user.email,
    sign_in_at: `/${appForRole(done.user.role)}`,
  };
}
