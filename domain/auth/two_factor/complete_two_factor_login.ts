/**
 * The second step of a sign-in: the challenge a login answered with, and a
 * code. For a `verify` challenge, a TOTP code or a recovery code; for an
 * `enrol` challenge (the workspace requires two-factor), the first code of
 * the secret set up through `startEnrolmentForChallenge`, which turns it on
 * and answers the recovery codes too. Success issues the surface's token (the
 * login's own answer follows), clears the lockout and closes the challenge.
 */
import { findUser } from "../../../db/users.ts";
import { findWorkspace } from "../../../db/workspaces.ts";
import { type AuditActor, recordAudit } from "../../audit/record_audit.ts";
import { Forbidden, Unauthenticated } from "../../errors.ts";
import {
  issueSignInToken,
  LOGIN_REFUSED_MESSAGE,
  type LoginDeps,
  type LoginResult,
  type LoginSurface,
  recordSignInFailure,
} from "../login.ts";
import { checkSecondFactor, type SecondFactor } from "./check_second_factor.ts";
import { codeAttempt } from "./code_attempt.ts";
import { enableTwoFactor } from "./enable_two_factor.ts";
import { closeChallenge, readChallenge, type SignInChallenge } from "./sign_in_challenge.ts";
import { WRONG_CODE_MESSAGE } from "./confirm_two_factor.ts";
import { startTwoFactorEnrolment, type TwoFactorEnrolment } from "./start_two_factor_enrolment.ts";

export const CHALLENGE_EXPIRED_MESSAGE =
  "This sign-in has expired or is unknown: sign in again with your password.";

/** A challenge of this surface still open, or 401. */
async function openChallengeOf(
  deps: LoginDeps,
  challenge: string,
  ability: string,
  purpose?: SignInChallenge["purpose"],
): Promise<SignInChallenge> {
  const c = await readChallenge(deps.kv, challenge);
  if (!c || c.ability !== ability || (purpose && c.purpose !== purpose)) {
    throw new Unauthenticated(CHALLENGE_EXPIRED_MESSAGE);
  }
  return c;
}

/** The secret to set up, for a sign-in whose workspace requires two-factor. */
export async function startEnrolmentForChallenge(
  deps: LoginDeps,
  surface: Pick<LoginSurface, "ability">,
  challenge: string,
): Promise<TwoFactorEnrolment> {
  const c = await openChallengeOf(deps, challenge, surface.ability, "enrol");
  return await startTwoFactorEnrolment(deps.sql, deps.appKey, { id: c.userId, email: c.email });
}

export async function completeTwoFactorLogin(
  deps: LoginDeps,
  surfaceFor: (deviceName: string | null) => LoginSurface,
  input: { challenge: string; code: string; ip: string; now: Date; ability: string },
): Promise<LoginResult & { recoveryCodes: string[] | null; deviceName: string | null }> {
  const c = await openChallengeOf(deps, input.challenge, input.ability);
  const surface = surfaceFor(c.deviceName);
  const user = await findUser(deps.sql, c.workspaceId, c.userId);
  const workspace = await findWorkspace(deps.sql, c.workspaceId);
  // What changed since the password step (a suspension, a role) is checked again.
  if (!user || !workspace || user.suspended || workspace.suspended) {
    throw new Forbidden(LOGIN_REFUSED_MESSAGE);
  }
  if (!surface.eligible(user, workspace)) {
    throw new Forbidden(surface.ineligibleMessage ?? LOGIN_REFUSED_MESSAGE);
  }
  const actor: AuditActor = {
    userId: user.id,
    tokenId: null,
    label: `${user.name} <${user.email}>`,
    ip: input.ip,
  };
  const done = await codeAttempt(
    deps,
    { email: c.email, ip: input.ip },
    () =>
      deps.sql.begin(async (tx) => {
        let factor: SecondFactor | null;
        let recoveryCodes: string[] | null = null;
        if (c.purpose === "enrol") {
          recoveryCodes = await enableTwoFactor(tx, deps.appKey, {
            userId: user.id,
            workspaceId: workspace.id,
            code: input.code,
            actor,
            now: input.now,
          });
          factor = recoveryCodes ? "totp" : null;
        } else {
          factor = await checkSecondFactor(tx, deps.appKey, {
            userId: user.id,
            code: input.code,
            now: input.now,
          });
        }
        if (!factor) return null;
        if (factor === "recovery_code") {
          await recordAudit(tx, {
            workspaceId: workspace.id,
            actor,
            action: "auth.recovery_code_used",
            target: { type: "user", id: user.id },
            now: input.now,
          });
        }
        const token = await issueSignInToken(tx, surface, user, workspace, input, {
          second_factor: factor,
        });
        return { token, recoveryCodes };
      }),
  );
  if (!done) {
    await recordSignInFailure(deps.sql, {
      workspaceId: workspace.id,
      email: c.email,
      ip: input.ip,
      reason: "wrong_two_factor_code",
      now: input.now,
    });
    throw new Unauthenticated(WRONG_CODE_MESSAGE);
  }
  await closeChallenge(deps.kv, input.challenge);
  return {
    token: done.token,
    user,
    workspace,
    recoveryCodes: done.recoveryCodes,
    deviceName: c.deviceName,
  };
}
