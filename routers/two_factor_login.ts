/**
 * The second step of a login, for one surface: `POST {prefix}/login/two-factor`
 * (challenge and code: the login's own answer) and
 * `POST {prefix}/login/two-factor/setup` (challenge: the secret to set up when
 * the workspace requires two-factor). Public, limited per address like the
 * logins, and counted in the same lockout.
 */
import { z } from "zod";
import { publicProcedure } from "./trpc.ts";
import type { AppDeps } from "../domain/deps.ts";
import type { Ability } from "../db/tokens.ts";
import { loginDepsOf } from "../domain/auth/login.ts";
import { startEnrolmentForChallenge } from "../domain/auth/two_factor/complete_two_factor_login.ts";
import * as s from "./schemas/two_factor.ts";

interface SecondStepSurface<Answer extends z.ZodType> {
  prefix: "/api/dashboard" | "/api/agent" | "/api/portal";
  ability: Ability;
  /** The login's answer schema, with the optional `recovery_codes` (`withRecoveryCodes`). */
  answer: Answer;
  complete(
    deps: AppDeps,
    input: { challenge: string; code: string; ip: string; now: Date },
  ): Promise<z.input<Answer>>;
}

/** A login's answer, as the second step gives it: plus the codes of a required enrolment. */
export function withRecoveryCodes<Shape extends z.ZodRawShape>(answer: z.ZodObject<Shape>) {
  return answer.extend({ recovery_codes: s.recoveryCodes.optional() });
}

export function secondStepProcedures<Answer extends z.ZodType>(
  surface: SecondStepSurface<Answer>,
) {
  const path = `${surface.prefix}/login/two-factor` as const;
  const limit = { limit: 10, windowSeconds: 60, by: "ip" } as const;
  return {
    loginTwoFactor: publicProcedure
      .meta({
        openapi: {
          method: "POST",
          path,
          summary: "Second step of the login for an account with two-factor sign-in: the " +
            "login's answer",
          description: s.SECOND_STEP_DESCRIPTION,
          errors: [401, 403],
          requestExample: { challenge: "Zk3…", code: "123456" },
        },
        rateLimit: { name: `${surface.ability}-login-two-factor`, ...limit },
      })
      .input(s.secondStepInput)
      .output(surface.answer)
      // The generic answer's type is checked where each surface passes `complete`.
      .mutation(({ ctx, input }) =>
        surface.complete(ctx.deps, { ...input, ip: ctx.ip, now: ctx.now }) as Promise<never>
      ),
    loginTwoFactorSetup: publicProcedure
      .meta({
        openapi: {
          method: "POST",
          path: `${path}/setup`,
          summary: "For a login answered `two_factor_setup_required`: the secret to set up " +
            "(otpauth:// URI, QR code as SVG, typed form)",
          description: "Then send its first code with the challenge to " +
            `\`POST ${path}\`. 401 when the challenge expired.`,
          errors: [401],
          requestExample: { challenge: "Zk3…" },
        },
        rateLimit: { name: `${surface.ability}-login-two-factor-setup`, ...limit },
      })
      .input(s.challengeInput)
      .output(s.enrolment)
      .mutation(({ ctx, input }) =>
        startEnrolmentForChallenge(
          loginDepsOf(ctx.deps),
          { ability: surface.ability },
          input.challenge,
        )
      ),
  };
}
