/**
 * The invitee's side of an invitation link (no token): POST
 * /api/dashboard/invitation reads it, POST /api/dashboard/invitation/accept
 * uses it. The secret travels in the body, never in a URL a log could keep.
 */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { acceptInvitation, describeInvitation } from "../../domain/team/accept_invitation.ts";
import { tokenSession as dashboardSession } from "./session.ts";
import { tokenSession as agentSession } from "../agent/session.ts";

const token = z.string().min(16).max(200);
const limit = { name: "dashboard-invitation", limit: 10, windowSeconds: 60, by: "ip" } as const;

export const readInvitation = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/invitation",
      summary: "What an invitation link offers: the workspace, the address and the role",
      description: "404 for a link used, revoked or expired.",
      errors: [404],
    },
    rateLimit: limit,
  })
  .input(z.object({ token }))
  .output(z.object({ workspace: z.string(), email: z.string(), role: z.string() }))
  .mutation(({ ctx, input }) => describeInvitation(ctx.deps, input.token, ctx.now));

export const acceptInvitationProcedure = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/invitation/accept",
      summary: "Use an invitation link: choose a name and password; the account is created " +
        "and signed in",
      description: "Single use: a second call answers 404. `workspace` names the workspace " +
        "joined. The new member is signed in where their role works: an agent gets " +
        "`agent_session` (the `POST /api/agent/login` answer, for `/inbox`), anyone else " +
        "`dashboard_session` (the `POST /api/dashboard/login` answer); the other is null. " +
        "`sign_in_at` says which (`/inbox` or `/dashboard`). Where the workspace requires " +
        "two-factor sign-in, both are null and `two_factor_setup_required` is true: the " +
        "member signs in at `sign_in_at`, which sets it up first (docs/accounts.md).",
      errors: [404],
    },
    rateLimit: limit,
  })
  .input(z.object({
    token,
    name: z.string().trim().min(1).max(120),
    password: z.string().min(8).max(1000),
  }))
  .output(z.object({
    email: z.string(),
    role: z.string(),
    workspace: z.string(),
    sign_in_at: z.enum(["/inbox", "/dashboard"]),
    agent_session: agentSession.nullable(),
    dashboard_session: dashboardSession.nullable(),
    two_factor_setup_required: z.boolean(),
  }))
  .mutation(({ ctx, input }) =>
    acceptInvitation(
      ctx.deps,
      { secret: input.token, name: input.name, password: input.password, ip: ctx.ip },
      ctx.now,
    )
  );
