/**
 * Check what a person typed at the second step against their enrolment: a
 * six-digit TOTP code (one step either side of now, each step usable once) or
 * one of their unused recovery codes (spent here). The caller counts a
 * refusal in the login lockout.
 */
import type { Executor } from "../../../db/client.ts";
import { claimStep, findTwoFactorState, useRecoveryCode } from "../../../db/two_factor.ts";
import { decryptText } from "../secrets.ts";
import { matchTotpStep } from "./totp.ts";
import { hashRecoveryCode, looksLikeRecoveryCode } from "./recovery_codes.ts";

export type SecondFactor = "totp" | "recovery_code";

/**
 * Which factor passed, or null. `pending`: check against a secret not yet
 * confirmed (enrolment), where a recovery code cannot stand in.
 */
export async function checkSecondFactor(
  sql: Executor,
  appKey: CryptoKey,
  input: { userId: number; code: string; now: Date; pending?: boolean },
): Promise<SecondFactor | null> {
  const state = await findTwoFactorState(sql, input.userId);
  if (!state.secret || (input.pending ? state.enabledAt !== null : state.enabledAt === null)) {
    return null;
  }
  if (!input.pending && looksLikeRecoveryCode(input.code)) {
    const spent = await useRecoveryCode(
      sql,
      input.userId,
      await hashRecoveryCode(input.code),
      input.now,
    );
    return spent ? "recovery_code" : null;
  }
  const secret = await decryptText(appKey, state.secret);
  const step = matchTotpStep(secret, input.code, input.now);
  if (step === null) return null;
  // A code already used (or an older one, after a newer was used) is refused.
  return await claimStep(sql, input.userId, step) ? "totp" : null;
}
