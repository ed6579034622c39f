/**
 * "Forgot password" and the use of a reset link: POST
 * /api/dashboard/password/forgot and /api/dashboard/password/reset, public,
 * for the dashboard's and the inbox's sign-in forms and any API client
 * (docs/accounts.md). Rate-limited per address (meta) and per e-mail (here),
 * and counted in the shared login lockout (the domain).
 */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { enforceRateLimit, type RateLimitSpec } from "../guards/rate_limit.ts";
import { requestPasswordReset } from "../../domain/account/request_password_reset.ts";
import { resetPassword } from "../../domain/account/reset_password.ts";
import { loginDepsOf } from "../../domain/auth/login.ts";
import { sha256Hex } from "../../domain/auth/secrets.ts";

const PER_EMAIL: RateLimitSpec = {
  name: "password-forgot-email",
  limit: 3,
  windowSeconds: 3600,
  by: "user",
};

export const forgotPassword = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/password/forgot",
      summary: "E-mail a password reset link (one hour, single use)",
      description: "The same answer whether or not an account uses the address. `app` picks the " +
        "page the link opens (`dashboard`, the default, or `inbox`). Without SMTP configured " +
        "`emailed` is false and `message` says who can issue a link. Limited to 5 a minute per " +
        "address and 3 an hour per e-mail (429), and each request counts as one attempt in " +
        "the login lockout of that e-mail and address.",
      requestExample: { email: "amy@acme.test", app: "inbox" },
    },
    rateLimit: { name: "password-forgot", limit: 5, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    email: z.string().trim().max(255).pipe(z.email()),
    app: z.enum(["dashboard", "inbox"]).default("dashboard"),
  }))
  .output(z.object({ message: z.string(), emailed: z.boolean() }))
  .mutation(async ({ ctx, input }) => {
    // Per e-mail, hashed so the counter's name holds no address.
    const subject = await sha256Hex(input.email.toLowerCase());
    await enforceRateLimit(ctx.deps.kv, PER_EMAIL, subject, ctx.response.headers);
    return await requestPasswordReset(ctx.deps, loginDepsOf(ctx.deps).lockout, {
      email: input.email,
      app: input.app,
      ip: ctx.ip,
      now: ctx.now,
    });
  });

export const resetPasswordProcedure = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/password/reset",
      summary: "Use a reset link: set a new password; every session of the account ends",
      description: "`token` is the part of the link after `#/reset/`. 422 on `token` when the " +
        "link was used, replaced or has expired (a wrong link counts in the login lockout of " +
        "the caller's address), on `password` under 8 characters.",
      requestExample: { token: "Xy…", password: "a new long passphrase" },
      responseExample: {
        message: "Your password is changed. Sign in with it.",
        email: "amy@acme.test",
        sign_in_at: "/inbox",
      },
    },
    rateLimit: { name: "password-reset", limit: 10, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    token: z.string().min(1).max(200),
    password: z.string().min(8).max(1000),
  }))
  .output(z.object({ message: z.string(), email: z.string(), sign_in_at: z.string() }))
  .mutation(({ ctx, input }) =>
    resetPassword(ctx.deps, loginDepsOf(ctx.deps).lockout, {
      secret: input.token,
      password: input.password,
      ip: ctx.ip,
      now: ctx.now,
    })
  );
