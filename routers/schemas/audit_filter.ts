/**
 * The audit log's filter as query parameters, shared by the list
 * (`GET /api/dashboard/audit-log`) and its CSV export.
 */
import { z } from "zod";
import { AUDIT_ACTIONS } from "../../domain/audit/audit_actions.ts";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date such as 2026-01-31.");

export const auditFilterShape = {
  person: z.string().regex(/^[1-9]\d{0,14}$/, "Use a numeric user id.").optional().meta({
    description: "A member's user id: what this person did (as the actor).",
    example: "12",
  }),
  action: z.enum(AUDIT_ACTIONS, { error: "Use one of the audit log's action names." })
    .optional().meta({ description: "One action name (docs/accounts.md lists them)." }),
  from: day.optional().meta({
    description: "On or after this UTC day (YYYY-MM-DD).",
    example: "2026-01-01",
  }),
  to: day.optional().meta({
    description: "On or before this UTC day, inclusive.",
    example: "2026-01-31",
  }),
};

export const auditFilterInput = z.object(auditFilterShape);
