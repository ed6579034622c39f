/**
 * The two-factor fields and answers every surface shares: the second step's
 * input, the enrolment's secret, the status (docs/accounts.md).
 */
import { z } from "zod";

/** The second step of a sign-in: the login's challenge and a code (or a recovery code). */
export const secondStepInput = z.object({
  challenge: z.string().trim().min(1).max(200),
  code: z.string().trim().min(1).max(32),
});

export const challengeInput = z.object({ challenge: z.string().trim().min(1).max(200) });

export const enrolment = z.object({
  secret: z.string(),
  otpauth_uri: z.string(),
  qr_svg: z.string(),
});

export const recoveryCodes = z.array(z.string());

export const twoFactorStatus = z.object({
  enabled: z.boolean(),
  enabled_at: z.string().nullable(),
  recovery_codes_left: z.int(),
  required_by_workspace: z.boolean(),
});

export const codeInput = z.object({ code: z.string().trim().min(1).max(32) });

export const disableInput = z.object({
  password: z.string().min(1).max(1000),
  code: z.string().trim().min(1).max(32),
});

export const SECOND_STEP_DESCRIPTION =
  "The second step of a login that answered `two_factor_required` (401) or " +
  "`two_factor_setup_required` (403) with a `challenge` (valid five minutes). `code` is the " +
  "six-digit code of the authenticator app (each code works once) or, for `two_factor_required`, " +
  "an unused recovery code. Success is the login's own answer; after a required enrolment it " +
  "also carries `recovery_codes`, shown once. A wrong code is 401 and counts in the login " +
  "lockout (429 with `Retry-After`); an expired challenge is 401. See docs/accounts.md.";
