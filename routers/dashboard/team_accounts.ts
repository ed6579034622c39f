/**
 * A member's account from Team: POST /api/dashboard/team/{user}/password-reset
 * (a reset link, shown once) and DELETE /api/dashboard/team/{user}/sessions
 * (sign the member out everywhere). Owners and administrators; an
 * administrator not for an owner.
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { issueResetLink } from "../../domain/account/issue_reset_link.ts";
import { endMemberSessions } from "../../domain/account/end_sessions.ts";

const user = z.coerce.number().int().min(1);

export const issueMemberResetLink = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/team/{user}/password-reset",
      summary: "Issue a password reset link for a teammate, shown this once",
      description: "For a server without SMTP, or a teammate without their mailbox: pass the " +
        "link on. Valid one hour, single use; a newer link replaces it. 422 on `user` for " +
        "yourself, and for an owner when you are an administrator.",
      responseExample: {
        link: "https://support.acme.test/inbox#/reset/Xy…",
        expires_at: "2025-01-01T13:00:00.000Z",
      },
    },
    permission: "manage-workspace",
    rateLimit: { name: "team-reset-link", limit: 20, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({ user }))
  .output(z.object({ link: z.string(), expires_at: z.string() }))
  .mutation(({ ctx, input }) => issueResetLink(ctx.deps, ctx.auth!, input.user, ctx.ip, ctx.now));

export const endMemberSessionsProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/team/{user}/sessions",
      summary: "Sign a teammate out everywhere (dashboard, inbox, agent apps, portal)",
      description: "Their sockets close at once; their API tokens stay. 422 on `user` for " +
        "yourself (use your account's sessions), and for an owner when you are an administrator.",
      responseExample: { message: "3 sessions ended.", ended: 3 },
    },
    permission: "manage-workspace",
    rateLimit: { name: "team-sessions", limit: 30, windowSeconds: 3600, by: "user" },
  })
  .input(z.object({ user }))
  .output(z.object({ message: z.string(), ended: z.int() }))
  .mutation(async ({ ctx, input }) => {
    const r = await endMemberSessions(ctx.deps, ctx.auth!, input.user, ctx.ip, ctx.now);
    return { message: `${r.ended} session${r.ended === 1 ? "" : "s"} ended.`, ...r };
  });
