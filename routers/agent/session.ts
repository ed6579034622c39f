/** POST /api/agent/login, POST /api/agent/refresh, GET /api/agent/me, POST /api/agent/logout. */
import { z } from "zod";
import { agentProcedure, publicProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { agentLogin } from "../../domain/agent/agent_login.ts";
import { refreshAgentToken } from "../../domain/agent/refresh_agent_token.ts";
import { agentLogout } from "../../domain/agent/agent_logout.ts";
import { agentSessionView } from "../../domain/agent/agent_session.ts";

const user = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  role: z.string(),
  avatar: z.string().nullable(),
});
const company = z.object({ id: z.number().int(), name: z.string(), plan: z.string() });
const session = z.object({
  expires_at: z.string(),
  device_name: z.string().nullable(),
  user,
  company,
});
export const tokenSession = session.extend({ token: z.string() });

export const login = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/login",
      summary: "Exchange an agent's e-mail and password for an agent token",
      description: "One refusal text for every failure: 401 for wrong credentials, 403 for an " +
        "account that may not sign in (viewer seat, suspended). The lockout, shared with the " +
        "portal login, answers 429 with `Retry-After`.",
      errors: [401, 403],
      requestExample: {
        email: "agent@acme.test",
        password: "••••••••",
        device_name: "Amy's laptop",
      },
    },
    rateLimit: { name: "agent-login", limit: 10, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    email: z.string().trim().max(255).pipe(z.email()),
    // bcrypt reads 72 bytes; the cap only keeps absurd bodies away from the hash.
    password: z.string().min(1).max(1000),
    device_name: chars(120).optional(),
  }))
  .output(tokenSession)
  .mutation(({ ctx, input }) =>
    agentLogin(ctx.deps, {
      email: input.email,
      password: input.password,
      deviceName: input.device_name?.trim() || null,
      ip: ctx.ip,
      now: ctx.now,
    })
  );

export const refresh = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/refresh",
      summary: "A fresh token in the login shape (renew past half the token's life)",
    },
    rateLimit: { name: "agent-refresh", limit: 6, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({}))
  .output(tokenSession)
  .mutation(({ ctx }) => refreshAgentToken(ctx.deps, ctx.auth!, ctx.now));

export const me = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/me",
      summary: "The signed-in agent, the workspace and the token's expiry",
    },
  })
  .input(z.object({}))
  .output(session)
  .query(({ ctx }) => agentSessionView(ctx.auth!));

export const logout = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/logout",
      summary: "Revoke the token used",
    },
  })
  .input(z.object({}))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx }) => {
    await agentLogout(ctx.deps, ctx.auth!, ctx.now);
    return { message: "Logged out." };
  });
