/** POST /api/portal/login, POST /api/portal/logout, GET /api/portal/me. */
import { z } from "zod";
import { portalProcedure, publicProcedure } from "../trpc.ts";
import { portalLogin } from "../../domain/portal/portal_login.ts";
import { describePortalSession } from "../../domain/portal/describe_portal_session.ts";
import { revokeCurrentToken } from "../../domain/auth/tokens.ts";

export const user = z.object({ name: z.string(), email: z.string(), role: z.string() });
export const company = z.object({ name: z.string(), plan: z.string() });
export const brand = z.object({
  name: z.string(),
  powered_by: z.string(),
  logo_url: z.string().nullable(),
});

export const login = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/login",
      summary: "Log in as a workspace owner or administrator; returns a portal token",
      description: "Refusals are deliberately alike: a wrong password, an unknown address, a " +
        "disabled portal and an insufficient role read the same. Attempts share one lockout " +
        "with the other logins (429 with `Retry-After`).",
      errors: [401, 403],
      requestExample: { email: "owner@example.com", password: "correct horse battery staple" },
    },
    rateLimit: { name: "portal-login", limit: 10, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    email: z.string().trim().max(255).pipe(z.email()),
    // bcrypt reads 72 bytes; the cap only keeps absurd bodies away from the hash.
    password: z.string().min(1).max(1000),
  }))
  .output(z.object({ token: z.string(), user, company, brand }))
  .mutation(({ ctx, input }) =>
    portalLogin(ctx.deps, {
      email: input.email,
      password: input.password,
      ip: ctx.ip,
      now: ctx.now,
    })
  );

export const logout = portalProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/logout",
      summary: "Revoke the portal token used for this request",
      responseExample: { message: "Logged out." },
    },
  })
  .input(z.object({}))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx }) => {
    await revokeCurrentToken(ctx.deps.sql, ctx.auth!, ctx.now);
    return { message: "Logged out." };
  });

export const me = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/me",
      summary: "The signed-in user, the workspace's brand, plan limits and usage",
    },
  })
  .input(z.object({}))
  .output(z.object({
    user,
    company,
    brand,
    limits: z.object({
      plan: z.string(),
      monthly_message_limit: z.int().nullable(),
      chatbot_limit: z.int(),
      agent_seats: z.int(),
    }),
    usage: z.object({
      messages_used: z.int(),
      message_limit: z.int().nullable(),
      usage_percent: z.number().nullable(),
      chatbots: z.int(),
    }),
  }))
  .query(({ ctx }) => {
    const auth = ctx.auth!;
    return describePortalSession(ctx.deps.sql, {
      workspaceId: auth.workspace.id,
      user: { name: auth.user.name, email: auth.user.email, role: auth.user.role },
      now: ctx.now,
    });
  });
