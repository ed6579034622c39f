/**
 * POST /api/dashboard/login, POST /api/dashboard/refresh, GET /api/dashboard/me,
 * POST /api/dashboard/logout: the owners' dashboard session (docs/dashboard.md).
 */
import { z } from "zod";
import { dashboardProcedure, publicProcedure } from "../trpc.ts";
import { dashboardLogin } from "../../domain/dashboard/dashboard_login.ts";
import { refreshDashboardToken } from "../../domain/dashboard/refresh_dashboard_token.ts";
import { dashboardSessionView } from "../../domain/dashboard/dashboard_session.ts";
import { dashboardLogout } from "../../domain/dashboard/dashboard_logout.ts";

const session = z.object({
  expires_at: z.string(),
  user: z.object({
    id: z.int(),
    name: z.string(),
    email: z.string(),
    role: z.enum(["owner", "administrator", "agent", "viewer"]),
    role_label: z.string(),
  }),
  company: z.object({ id: z.int(), name: z.string(), plan: z.string() }),
  brand: z.object({ name: z.string(), powered_by: z.string(), logo_url: z.string().nullable() })
    .nullable(),
  permissions: z.array(z.enum(["manage-chatbots", "manage-content", "manage-workspace"])),
});
export const tokenSession = session.extend({ token: z.string() });

export const login = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/login",
      summary: "Exchange an owner's, administrator's or viewer's e-mail and password for a " +
        "dashboard token",
      description: "Any workspace, portal-enabled or not. 401 for wrong credentials; 403 for a " +
        "suspended account (the vague refusal) and for an agent (a message that points to " +
        "`/inbox`). Attempts share one lockout with the other logins (429 with `Retry-After`).",
      errors: [401, 403],
      requestExample: { email: "owner@acme.test", password: "••••••••" },
    },
    rateLimit: { name: "dashboard-login", limit: 10, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    email: z.string().trim().max(255).pipe(z.email()),
    // bcrypt reads 72 bytes; the cap only keeps absurd bodies away from the hash.
    password: z.string().min(1).max(1000),
  }))
  .output(tokenSession)
  .mutation(({ ctx, input }) =>
    dashboardLogin(ctx.deps, {
      email: input.email,
      password: input.password,
      ip: ctx.ip,
      now: ctx.now,
    })
  );

export const refresh = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/refresh",
      summary: "A fresh dashboard token in the login shape (renew past half the token's life)",
    },
    rateLimit: { name: "dashboard-refresh", limit: 6, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({}))
  .output(tokenSession)
  .mutation(({ ctx }) => refreshDashboardToken(ctx.deps, ctx.auth!, ctx.now));

export const me = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/me",
      summary: "The signed-in user, the workspace, its brand (portal only) and the permissions",
    },
  })
  .input(z.object({}))
  .output(session)
  .query(({ ctx }) => dashboardSessionView(ctx.deps.sql, ctx.auth!));

export const logout = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/logout",
      summary: "Revoke the dashboard token used",
      responseExample: { message: "Logged out." },
    },
  })
  .input(z.object({}))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx }) => {
    await dashboardLogout(ctx.deps, ctx.auth!, ctx.now);
    return { message: "Logged out." };
  });
