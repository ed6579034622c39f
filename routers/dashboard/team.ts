/**
 * The Team screen: GET /api/dashboard/team, invitations (POST, DELETE
 * …/team/invitations/{invitation}, POST …/{invitation}/resend), and a
 * member's role, suspension and removal (PATCH, DELETE …/team/{user}).
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { listTeam } from "../../domain/team/list_team.ts";
import { inviteTeammate } from "../../domain/team/invite_teammate.ts";
import { revokeInvitation } from "../../domain/team/revoke_invitation.ts";
import { changeMember } from "../../domain/team/manage_member.ts";
import { resendInvitation } from "../../domain/team/resend_invitation.ts";

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
        "latest use of any of the member's tokens (updated at most once a minute). Each open " +
        "invitation's `link` is given to owners and administrators while it can be used " +
        "(null for a viewer and once expired); `link_lost` marks an invitation made before " +
        "links were kept, which only renewing (inviting the address again) gives a link. " +
        "`email_enabled` says whether invitations can be e-mailed (and resent).",
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
      link: z.string().nullable(),
      link_lost: z.boolean(),
    })),
    seats: z.object({ used: z.int(), limit: z.int() }),
    email_enabled: z.boolean(),
  }))
  .query(({ ctx }) => listTeam(ctx.deps, ctx.auth!, ctx.now));

export const invite = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/team/invitations",
      summary: "Invite a teammate by e-mail with a role (renews an open invitation)",
      description: "201. The link is single-use and expires after 7 days. An address with an " +
        "open invitation gets it renewed (`renewed` true): a new link (the old one stops " +
        "working), a new expiry, the role given. With `SMTP_URL` set the link is e-mailed and " +
        "`link` is null; otherwise (or when the mail fails) `link` carries it. Either way " +
        "`GET /api/dashboard/team` shows it again to owners and administrators. 422 on " +
        "`role` when every seat is taken, on `email` for an address with an account; 403 " +
        "when an administrator invites an owner.",
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
    renewed: z.boolean(),
    emailed: z.boolean(),
    link: z.string().nullable(),
  }))
  .mutation(async ({ ctx, input }) => {
    ctx.response.status = 201;
    return await inviteTeammate(ctx.deps, ctx.auth!, { ...input, ip: ctx.ip }, ctx.now);
  });

export const resendInvite = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/team/invitations/{invitation}/resend",
      summary: "E-mail an open invitation's link again (same link, same expiry)",
      description: "Needs `SMTP_URL` (503 otherwise: copy the link from the Team list). 422 on " +
        "`invitation` for an expired invitation or one made before links were kept: renew it " +
        "by inviting the address again. 503 with `Retry-After` when the mail cannot be sent.",
      errors: [404, 503],
      responseExample: { message: "Invitation e-mailed again to sam@acme.test." },
    },
    permission: "manage-workspace",
    rateLimit: { name: "dashboard-invitation-resend", limit: 10, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ invitation: id }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    resendInvitation(ctx.deps, ctx.auth!, { id: input.invitation, ip: ctx.ip }, ctx.now)
  );

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
    await revokeInvitation(ctx.deps, ctx.auth!, { id: input.invitation, ip: ctx.ip }, ctx.now);
    return { message: "Invitation revoked." };
  });

export const updateMember = dashboardProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/dashboard/team/{user}",
      summary: "Change a teammate's role, or suspend or restore them",
      description: "Send `role` or `suspended`. A suspended member's tokens answer 403 at once. " +
        "The last owner can be neither demoted nor suspended; you cannot change yourself here. " +
        "Making an owner, and changing or suspending one, is for owners (403 otherwise).",
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
      ctx.ip,
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
        "notes stay. The last owner cannot be removed; only an owner removes an owner.",
      responseExample: { message: "Teammate removed." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ user: id }))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx, input }) => {
    await changeMember(ctx.deps, ctx.auth!, input.user, { kind: "remove" }, ctx.now, ctx.ip);
    return { message: "Teammate removed." };
  });
