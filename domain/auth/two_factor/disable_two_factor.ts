/**
 * Turn two-factor sign-in off: the password and a current code (or a
 * recovery code) are both required, each wrong one counted in the login
 * lockout. The secret and the recovery codes are deleted, and the
 * `auth.two_factor_disabled` row written, in one transaction.
 */
import type { Auth } from "../tokens.ts";
import type { LoginDeps } from "../login.ts";
import { findUser } from "../../../db/users.ts";
import { clearTwoFactor, findTwoFactorState } from "../../../db/two_factor.ts";
import { actorOf, recordAudit } from "../../audit/record_audit.ts";
import { Invalid } from "../../errors.ts";
import { verifyPassword } from "../passwords.ts";
import { codeAttempt } from "./code_attempt.ts";
import { checkSecondFactor } from "./check_second_factor.ts";
import { WRONG_CODE_MESSAGE } from "./confirm_two_factor.ts";

export async function disableTwoFactor(
  deps: LoginDeps,
  auth: Auth,
  input: { password: string; code: string; ip: string; now: Date },
): Promise<void> {
  const state = await findTwoFactorState(deps.sql, auth.user.id);
  if (!state.enabledAt) throw Invalid.field("code", "Two-factor sign-in is not on.");
  // Which of the two was wrong: both refusals are counted alike.
  let wrong: "password" | "code" = "password";
  const done = await codeAttempt(deps, { email: auth.user.email, ip: input.ip }, async () => {
    const user = await findUser(deps.sql, auth.workspace.id, auth.user.id);
    if (!await verifyPassword(input.password, user?.password_hash ?? null)) return null;
    wrong = "code";
    return await deps.sql.begin(async (tx) => {
      const factor = await checkSecondFactor(tx, deps.appKey, {
        userId: auth.user.id,
        code: input.code,
        now: input.now,
      });
      if (!factor) return null;
      await clearTwoFactor(tx, auth.user.id);
      await recordAudit(tx, {
        workspaceId: auth.workspace.id,
        actor: actorOf(auth, input.ip),
        action: "auth.two_factor_disabled",
        target: { type: "user", id: auth.user.id },
        details: { factor },
        now: input.now,
      });
      return true;
    });
  });
  if (!done) {
    throw wrong === "password"
      ? Invalid.field("password", "The password is not correct.")
      : Invalid.field("code", WRONG_CODE_MESSAGE);
  }
}
