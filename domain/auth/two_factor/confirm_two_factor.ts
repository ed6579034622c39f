/**
 * The signed-in user confirms enrolment with a first code from the app;
 * answers the ten recovery codes, shown this once. A wrong code is 422 on
 * `code` and counts in the login lockout.
 */
import type { Auth } from "../tokens.ts";
import type { LoginDeps } from "../login.ts";
import { actorOf } from "../../audit/record_audit.ts";
import { Invalid } from "../../errors.ts";
import { codeAttempt } from "./code_attempt.ts";
import { enableTwoFactor } from "./enable_two_factor.ts";

export const WRONG_CODE_MESSAGE =
  "The code is not valid: type the code the app shows now (each code works once).";

export async function confirmTwoFactor(
  deps: LoginDeps,
  auth: Auth,
  input: { code: string; ip: string; now: Date },
): Promise<{ recovery_codes: string[] }> {
  const codes = await codeAttempt(
    deps,
    { email: auth.user.email, ip: input.ip },
    () =>
      deps.sql.begin((tx) =>
        enableTwoFactor(tx, deps.appKey, {
          userId: auth.user.id,
          workspaceId: auth.workspace.id,
          code: input.code,
          actor: actorOf(auth, input.ip),
          now: input.now,
        })
      ),
  );
  if (!codes) throw Invalid.field("code", WRONG_CODE_MESSAGE);
  return { recovery_codes: codes };
}
