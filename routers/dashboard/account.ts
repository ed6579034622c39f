/**
 * A person's own account under /api/dashboard/account (docs/accounts.md):
 * profile, password and sessions. Opened by any sign-in token of theirs
 * (dashboard, agent, portal: `accountProcedure`), so the dashboard, the web
 * inbox and agent apps share these procedures.
 */
import { z } from "zod";
import { accountProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { showProfile, updateProfile } from "../../domain/account/update_profile.ts";
import { changePassword } from "../../domain/account/change_password.ts";
import { endOwnSessions, listOwnSessions } from "../../domain/account/end_sessions.ts";
import { loginDepsOf } from "../../domain/auth/login.ts";

const profileView = z.object({
  id: z.int(),
  name: z.string(),
  email: z.string(),
  role: z.string(),
});
// bcrypt reads 72 bytes; the cap only keeps absurd bodies away from the hash.
const currentPassword = z.string().min(1).max(1000);
const newPassword = z.string().min(8).max(1000);

export const accountProfile = accountProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/account/profile",
      summary: "Your own name, e-mail and role",
      description:
        "Any sign-in token of yours: dashboard, agent (the inbox, agent apps) or portal.",
    },
  })
  .input(z.object({}))
  .output(profileView)
  .query(({ ctx }) => showProfile(ctx.deps.sql, ctx.auth!));

export const updateAccountProfile = accountProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/dashboard/account/profile",
      summary: "Change your name or e-mail",
      description: "A new `email` needs `current_password` (422 on `current_password` when it " +
        "is missing or wrong; 422 on `email` when another account uses it). Sessions stay.",
      requestExample: { name: "Amy Pond", email: "amy@acme.test", current_password: "••••••••" },
    },
    rateLimit: { name: "account-profile", limit: 20, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({
    name: chars(120).pipe(z.string().trim().min(1)).optional(),
    email: z.string().trim().max(255).pipe(z.email()).optional(),
    current_password: currentPassword.optional(),
  }))
  .output(profileView)
  .mutation(({ ctx, input }) =>
    updateProfile(
      ctx.deps.sql,
      ctx.auth!,
      { name: input.name, email: input.email, currentPassword: input.current_password },
      ctx.ip,
      ctx.now,
    )
  );

export const changeAccountPassword = accountProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/account/password",
      summary: "Change your password; every other session of yours ends",
      description: "422 on `current_password` when it is wrong (counted in the login lockout: " +
        "429 with `Retry-After` at the threshold), on `password` under 8 characters. Every " +
        "other dashboard, agent and portal token of yours is revoked and its sockets close; " +
        "the token making the call keeps working. API tokens are not sessions and stay.",
      requestExample: { current_password: "••••••••", password: "a new long passphrase" },
      responseExample: { message: "Password changed.", sessions_ended: 2 },
    },
    rateLimit: { name: "account-password", limit: 10, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({ current_password: currentPassword, password: newPassword }))
  .output(z.object({ message: z.string(), sessions_ended: z.int() }))
  .mutation(async ({ ctx, input }) => {
    const r = await changePassword(
      ctx.deps,
      loginDepsOf(ctx.deps).lockout,
      ctx.auth!,
      { currentPassword: input.current_password, newPassword: input.password },
      ctx.ip,
      ctx.now,
    );
    return { message: "Password changed.", ...r };
  });

const session = z.object({
  id: z.int(),
  app: z.enum(["dashboard", "inbox", "agent_app", "portal"]),
  device_name: z.string().nullable(),
  signed_in_at: z.string(),
  last_used_at: z.string().nullable(),
  ip: z.string().nullable(),
  current: z.boolean(),
});

export const listAccountSessions = accountProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/account/sessions",
      summary: "Your signed-in devices: app, device name, last use and address",
      description:
        "Good (unexpired, unrevoked) dashboard, agent and portal tokens of yours, most " +
        "recently used first. `current` marks the token making the call. `last_used_at` and " +
        "`ip` are written at most once a minute, and at once when the address changes.",
    },
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(session) }))
  .query(({ ctx }) => listOwnSessions(ctx.deps.sql, ctx.auth!, ctx.now));

export const endOtherAccountSessions = accountProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/account/sessions",
      summary: "Sign out everywhere else: end every session of yours but this one",
      responseExample: { message: "2 sessions ended.", ended: 2 },
    },
    rateLimit: { name: "account-sessions", limit: 30, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({}))
  .output(z.object({ message: z.string(), ended: z.int() }))
  .mutation(async ({ ctx }) => {
    const r = await endOwnSessions(ctx.deps, ctx.auth!, "others", ctx.ip, ctx.now);
    return { message: `${r.ended} session${r.ended === 1 ? "" : "s"} ended.`, ...r };
  });

export const endAccountSession = accountProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/account/sessions/{session}",
      summary: "End one of your sessions (the current one too: that is signing out)",
      description: "404 when the id is not a good session of yours.",
      responseExample: { message: "1 session ended.", ended: 1 },
    },
    rateLimit: { name: "account-sessions", limit: 30, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({ session: z.coerce.number().int().min(1) }))
  .output(z.object({ message: z.string(), ended: z.int() }))
  .mutation(async ({ ctx, input }) => {
    const r = await endOwnSessions(ctx.deps, ctx.auth!, { id: input.session }, ctx.ip, ctx.now);
    return { message: "1 session ended.", ...r };
  });
