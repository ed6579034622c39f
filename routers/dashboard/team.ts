/**
 * The Team screen: GET /api/dashboard/team, invitations (POST, DELETE
 * …/team/invitations/{invitation}), and a member's role, suspension and
 * removal (PATCH, DELETE …/team/{user}).
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { listTeam } from "../../domain/team/list_team.ts";
import { inviteTeammate } from "../../domain/team/invite_teammate.ts";
import { revokeInvitation } from "../../domain/team/revoke_invitation.ts";
import { changeMember } from "../../domain/team/manage_member.ts";

const role = z.enum(["owner", "administrator", "agent", "viewer"]);
const id = z.coerce.number().int().min(1);

export const team = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/team",
      summary: "Members (role, state, last activity), open invitations and seats",
      description: "`seats.used` counts owners, administrators and agents who can sign in, and " +
        "usable invitations for those roles; viewers take no seat. `last_active_at` is the " +
        "latest use of any of the member's tokens (updated at most once a minute).",
    },
  })
  .input(z.object({}))
  .output(z.object({
    members: z.array(z.object({
      id: z.int(),
      name: z.string(),
      email: z.string(),
      role,
      state: z.enum(["active", "suspended"]),
      last_active_at: z.string().nullable(),
      joined_at: z.string(),
    })),
    invitations: z.array(z.object({
      id: z.int(),
      email: z.string(),
      role,
      created_at: z.string(),
      expires_at: z.string(),
      state: z.enum(["pending", "expired"]),
    })),
    seats: z.object({ used: z.int(), limit: z.int() }),
  }))
  .query(({ ctx }) => listTeam(ctx.deps.sql, ctx.auth!.workspace.id, ctx.now));

export const invite = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/team/invitations",
      summary: "Invite a teammate by e-mail with a role",
      description: "201. The link is single-use and expires after 7 days. With `SMTP_URL` set it " +
        "is e-mailed and `link` is null; otherwise (or when the mail fails) `link` carries it, " +
        "shown this once. 422 on `role` when every seat is taken, on `email` for an address " +
        "with an account or an open invitation.",
      requestExample: { email: "sam@acme.test", role: "agent" },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ email: z.string().trim().max(255).pipe(z.email()), role }))
  .output(z.object({
    invitation: z.object({
      id: z.int(),
      email: z.string(),
      role: z.string(),
      expires_at: z.string(),
    }),
    emailed: z.boolean(),
    link: z.string().nullable(),
  }))
  .mutation(async ({ ctx, input }) => {
    ctx.response.status = 201;
    return await inviteTeammate(ctx.deps, ctx.auth!, input, ctx.now);
  });

export const revokeInvite = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/team/invitations/{invitation}",
      summary: "Revoke an open invitation; its link stops working",
      responseExample: { message: "Invitation revoked." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ invitation: id }))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx, input }) => {
    await revokeInvitation(ctx.deps.sql, ctx.auth!.workspace.id, input.invitation, ctx.now);
    return { message: "Invitation revoked." };
  });

export const updateMember = dashboardProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/dashboard/team/{user}",
      summary: "Change a teammate's role, or suspend or restore them",
      description: "Send `role` or `suspended`. A suspended member's tokens answer 403 at once. " +
        "The last owner can be neither demoted nor suspended; you cannot change yourself here.",
      requestExample: { role: "administrator" },
    },
    permission: "manage-workspace",
  })
  .input(
    z.object({ user: id, role: role.optional(), suspended: z.boolean().optional() })
      .refine((v) => (v.role === undefined) !== (v.suspended === undefined), {
        message: "Send either role or suspended.",
        path: ["role"],
      }),
  )
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx, input }) => {
    await changeMember(
      ctx.deps,
      ctx.auth!,
      input.user,
      input.role !== undefined
        ? { kind: "role", role: input.role }
        : { kind: "suspend", suspended: input.suspended! },
      ctx.now,
    );
    return {
      message: input.role !== undefined
        ? "Role changed."
        : input.suspended
        ? "Teammate suspended."
        : "Teammate restored.",
    };
  });

export const removeMember = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/team/{user}",
      summary: "Remove a teammate",
      description: "Their tokens, devices and own canned replies go with them; conversations " +
        "assigned to them become unassigned (the inbox's Team section); their messages and " +
        "notes stay. The last owner cannot be removed.",
      responseExample: { message: "Teammate removed." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ user: id }))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx, input }) => {
    await changeMember(ctx.deps, ctx.auth!, input.user, { kind: "remove" }, ctx.now);
    return { message: "Teammate removed." };
  });
