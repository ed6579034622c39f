/**
 * The signed-in user's own two-factor sign-in, on any surface whose token a
 * person signs in with: status, start enrolment, confirm, disable. Built once
 * per surface under `{prefix}/account/two-factor`: the dashboard's, like the
 * rest of `/api/dashboard/account/`, opens with any of the person's sign-in
 * tokens (dashboard, agent, portal); the agent API's with its own.
 */
import { z } from "zod";
import type { accountProcedure, agentProcedure } from "./trpc.ts";
import { loginDepsOf } from "../domain/auth/login.ts";
import { twoFactorStatus } from "../domain/auth/two_factor/two_factor_status.ts";
import { startTwoFactorEnrolment } from "../domain/auth/two_factor/start_two_factor_enrolment.ts";
import { confirmTwoFactor } from "../domain/auth/two_factor/confirm_two_factor.ts";
import { disableTwoFactor } from "../domain/auth/two_factor/disable_two_factor.ts";
import * as s from "./schemas/two_factor.ts";

type Builder = typeof accountProcedure | typeof agentProcedure;

export function twoFactorAccountProcedures(
  procedure: Builder,
  prefix: "/api/dashboard" | "/api/agent",
) {
  const path = `${prefix}/account/two-factor` as const;
  return {
    status: procedure
      .meta({
        openapi: {
          method: "GET",
          path,
          summary: "Whether two-factor sign-in is on for you, recovery codes left, and " +
            "whether your workspace requires it",
        },
      })
      .input(z.object({}))
      .output(s.twoFactorStatus)
      .query(({ ctx }) =>
        twoFactorStatus(ctx.deps.sql, {
          userId: ctx.auth!.user.id,
          workspaceId: ctx.auth!.workspace.id,
        })
      ),
    start: procedure
      .meta({
        openapi: {
          method: "POST",
          path: `${path}/setup`,
          summary: "Start enrolment: a new secret as an otpauth:// URI, its QR code (SVG) and " +
            "the typed form; not live until confirmed",
          description: "Starting again replaces an unconfirmed secret. 422 on `two_factor` " +
            "when it is already on (disable it first).",
        },
        rateLimit: { name: "two-factor-setup", limit: 10, windowSeconds: 60, by: "user" },
      })
      .input(z.object({}))
      .output(s.enrolment)
      .mutation(({ ctx }) =>
        startTwoFactorEnrolment(ctx.deps.sql, ctx.deps.appKey, {
          id: ctx.auth!.user.id,
          email: ctx.auth!.user.email,
        })
      ),
    confirm: procedure
      .meta({
        openapi: {
          method: "POST",
          path: `${path}/confirm`,
          summary: "Turn two-factor sign-in on with a first code; answers ten single-use " +
            "recovery codes, shown this once",
          description: "A wrong code is 422 on `code` and counts in the login lockout " +
            "(429 with `Retry-After`).",
          requestExample: { code: "123456" },
        },
        rateLimit: { name: "two-factor-confirm", limit: 10, windowSeconds: 60, by: "user" },
      })
      .input(s.codeInput)
      .output(z.object({ recovery_codes: s.recoveryCodes }))
      .mutation(({ ctx, input }) =>
        confirmTwoFactor(loginDepsOf(ctx.deps), ctx.auth!, {
          code: input.code,
          ip: ctx.ip,
          now: ctx.now,
        })
      ),
    disable: procedure
      .meta({
        openapi: {
          method: "POST",
          path: `${path}/disable`,
          summary: "Turn two-factor sign-in off with your password and a code (or a recovery " +
            "code)",
          description: "422 on `password` or `code` when wrong, each counted in the login " +
            "lockout (429 with `Retry-After`). The secret and the recovery codes are deleted.",
          requestExample: { password: "••••••••", code: "123456" },
          responseExample: { message: "Two-factor sign-in is off." },
        },
        rateLimit: { name: "two-factor-disable", limit: 10, windowSeconds: 60, by: "user" },
      })
      .input(s.disableInput)
      .output(z.object({ message: z.string() }))
      .mutation(async ({ ctx, input }) => {
        await disableTwoFactor(loginDepsOf(ctx.deps), ctx.auth!, {
          password: input.password,
          code: input.code,
          ip: ctx.ip,
          now: ctx.now,
        });
        return { message: "Two-factor sign-in is off." };
      }),
  };
}
