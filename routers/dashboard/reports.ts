/** GET /api/dashboard/reports: the Reports screen's figures (domain/reports/build_report.ts). */
import { dashboardProcedure } from "../trpc.ts";
import { REPORT_DESCRIPTION, reportInput, reportSchema } from "../schemas/report.ts";
import { buildReport } from "../../domain/reports/build_report.ts";

export const report = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/reports",
      summary: "Figures, series, busiest hours and per agent, bot and tag tables over a period",
      description: REPORT_DESCRIPTION,
    },
  })
  .input(reportInput)
  .output(reportSchema)
  .query(({ ctx, input }) => buildReport(ctx.deps.sql, ctx.auth!.workspace.id, input, ctx.now));
