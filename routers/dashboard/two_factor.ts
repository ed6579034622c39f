/**
 * Two-factor sign-in on the dashboard (docs/accounts.md): the login's second
 * step, the signed-in user's own enrolment, and the owner's workspace rule
 * (PUT /api/dashboard/settings/two-factor).
 */
import { z } from "zod";
import { accountProcedure, dashboardProcedure } from "../trpc.ts";
import { tokenSession } from "./session.ts";
import { secondStepProcedures, withRecoveryCodes } from "../two_factor_login.ts";
import { twoFactorAccountProcedures } from "../two_factor_account.ts";
import { dashboardTwoFactorLogin } from "../../domain/dashboard/dashboard_login.ts";
import { setTwoFactorRequirement } from "../../domain/auth/two_factor/set_two_factor_requirement.ts";

export const dashboardSecondStep = secondStepProcedures({
  prefix: "/api/dashboard",
  ability: "dashboard",
  answer: withRecoveryCodes(tokenSession),
  complete: dashboardTwoFactorLogin,
});

export const dashboardTwoFactorAccount = twoFactorAccountProcedures(
  accountProcedure,
  "/api/dashboard",
);

export const setTwoFactorRequirementProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/dashboard/settings/two-factor",
      summary: "Require (or stop requiring) two-factor sign-in of every member (owner only)",
      description: "Members without it are asked to set it up at their next sign-in " +
        "(`two_factor_setup_required`). 403 for anyone but an owner; 422 on `required` until " +
        "the owner has it on for their own account.",
      requestExample: { required: true },
      responseExample: { required: true },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ required: z.boolean() }))
  .output(z.object({ required: z.boolean() }))
  .mutation(async ({ ctx, input }) => {
    await setTwoFactorRequirement(ctx.deps.sql, ctx.auth!, {
      required: input.required,
      ip: ctx.ip,
      now: ctx.now,
    });
    return { required: input.required };
  });
