/**
 * GET /api/portal/reports: the same report the dashboard shows, for the
 * white-label portal's tenants (docs/portal-api.md).
 */
import { portalProcedure } from "../trpc.ts";
import { REPORT_DESCRIPTION, reportInput, reportSchema } from "../schemas/report.ts";
import { buildReport } from "../../domain/reports/build_report.ts";

export const report = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/reports",
      summary: "Figures, series, busiest hours and per agent, bot and tag tables over a period",
      description: REPORT_DESCRIPTION + " The same answer as `GET /api/dashboard/reports`.",
    },
  })
  .input(reportInput)
  .output(reportSchema)
  .query(({ ctx, input }) => buildReport(ctx.deps.sql, ctx.auth!.workspace.id, input, ctx.now));
