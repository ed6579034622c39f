/**
 * Confirm enrolment with a first code from the app: the secret goes live, ten
 * recovery codes are made (returned once, stored hashed) and the
 * `auth.two_factor_enabled` row is written, all in the caller's transaction.
 * Used by the signed-in user's confirm and by a sign-in's enrolment step.
 */
import type { Executor } from "../../../db/client.ts";
import { markEnabled, replaceRecoveryCodes } from "../../../db/two_factor.ts";
import { type AuditActor, recordAudit } from "../../audit/record_audit.ts";
import { checkSecondFactor } from "./check_second_factor.ts";
import { hashRecoveryCode, newRecoveryCodes } from "./recovery_codes.ts";

/** The recovery codes, or null when the code does not match the pending secret. */
export async function enableTwoFactor(
  tx: Executor,
  appKey: CryptoKey,
  input: { userId: number; workspaceId: number; code: string; actor: AuditActor; now: Date },
): Promise<string[] | null> {
  const passed = await checkSecondFactor(tx, appKey, {
    userId: input.userId,
    code: input.code,
    now: input.now,
    pending: true,
  });
  if (!passed) return null;
  await markEnabled(tx, input.userId, input.now);
  const codes = newRecoveryCodes();
  await replaceRecoveryCodes(tx, input.userId, await Promise.all(codes.map(hashRecoveryCode)));
  await recordAudit(tx, {
    workspaceId: input.workspaceId,
    actor: input.actor,
    action: "auth.two_factor_enabled",
    target: { type: "user", id: input.userId },
    now: input.now,
  });
  return codes;
}
