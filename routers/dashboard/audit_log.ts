/**
 * GET /api/dashboard/audit-log: who did what, when, from where, on which
 * record (docs/accounts.md), newest first, filtered and keyset-paged. Owners
 * and administrators only (permission `manage-workspace`). The CSV export is
 * a raw route beside it (audit_log_export.ts), on the same filter.
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { auditFilterShape } from "../schemas/audit_filter.ts";
import { listAuditLog } from "../../domain/audit/list_audit_log.ts";

export const auditEntry = z.object({
  id: z.int(),
  occurred_at: z.string(),
  actor: z.object({
    user_id: z.int().nullable(),
    label: z.string(),
    token_id: z.int().nullable(),
  }),
  ip: z.string().nullable(),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string() }).nullable(),
  details: z.record(z.string(), z.unknown()),
});

export const listAuditLogProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/audit-log",
      summary: "The workspace's audit log, newest first, filtered by person, action and date",
      description: "One row per security-relevant action (docs/accounts.md): when, the actor " +
        "(user id, name and e-mail at the time, the token used), the client address, the " +
        "action, its record (`target`, by public id) and details (names, counts, which " +
        "fields changed: never a secret). Keyset-paged: pass `next_cursor` back as `cursor` " +
        "(null on the last page). Owners and administrators only.",
    },
    permission: "manage-workspace",
  })
  .input(z.object({
    ...auditFilterShape,
    cursor: z.string().max(200).optional(),
    per_page: z.string().regex(/^\d{1,3}$/).optional().meta({
      description: "Rows per page, 1 to 100 (default 50).",
    }),
  }))
  .output(z.object({
    data: z.array(auditEntry),
    next_cursor: z.string().nullable(),
    per_page: z.int(),
  }))
  .query(async ({ ctx, input }) => {
    const perPage = Math.min(100, Math.max(1, Number(input.per_page ?? 50)));
    return await listAuditLog(ctx.deps.sql, ctx.auth!.workspace.id, {
      ...input,
      per_page: perPage,
    });
  });
