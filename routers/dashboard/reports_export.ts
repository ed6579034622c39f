/**
 * GET /api/dashboard/reports/export?table=agents|bots|tags: one of the
 * report's tables as a CSV file (domain/reports/export_report_table.ts). A
 * raw route because the answer is a file; refusals are the house's JSON
 * errors with the dashboard's token check and 422 shape.
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { AppDeps } from "../../domain/deps.ts";
import type { RawRoute } from "../raw_routes.ts";
import type { DescribedOperation } from "../openapi/document.ts";
import { describeError } from "../../app/logger.ts";
import { authenticate } from "../../domain/auth/tokens.ts";
import { can } from "../../domain/auth/permissions.ts";
import { Forbidden } from "../../domain/errors.ts";
import {
  exportReportTable,
  REPORT_TABLES,
  TABLE_COLUMNS,
} from "../../domain/reports/export_report_table.ts";
import { enforceRateLimit, type RateLimitSpec } from "../guards/rate_limit.ts";
import { toErrorReply } from "../doors/http_errors.ts";
import { errorResponse } from "../doors/rest_door.ts";
import { reportInputShape } from "../schemas/report.ts";
import { csvDownload } from "../doors/csv_download.ts";

const REPORT_EXPORT_RATE_LIMIT: RateLimitSpec = {
  name: "dashboard-report-export",
  limit: 30,
  windowSeconds: 60,
  by: "user",
};

const exportInput = z.object({
  ...reportInputShape,
  table: z.enum(REPORT_TABLES).meta({ description: "Which table: `agents`, `bots` or `tags`." }),
});

async function handleExport(req: Request, deps: AppDeps): Promise<Response> {
  const headers = new Headers();
  const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));
  try {
    const now = deps.clock();
    const auth = await authenticate(deps.sql, req.headers.get("authorization"), "dashboard", now);
    if (!can(auth.user.role, "view-dashboard")) {
      throw new Forbidden(
        "The dashboard is for owners, administrators and viewers. Agents work in the inbox at /inbox.",
      );
    }
    await enforceRateLimit(deps.kv, REPORT_EXPORT_RATE_LIMIT, String(auth.user.id), headers);
    const parsed = exportInput.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
    const file = await exportReportTable(deps.sql, auth.workspace, parsed.data, now);
    return await csvDownload(req, headers, { filename: file.filename, body: file.text });
  } catch (err) {
    return errorResponse(toErrorReply(err, onFault), headers);
  }
}

const operation: DescribedOperation = {
  name: "dashboard.exportReport",
  meta: {
    openapi: {
      method: "GET",
      path: "/api/dashboard/reports/export",
      summary: "One of the report's tables (agents, bots, tags) as a CSV file",
      description: "The same parameters as `GET /api/dashboard/reports` plus `table`; the " +
        "same rows in the same order, the API's field names as the header. RFC 4180 with " +
        "CRLF line ends and a UTF-8 byte-order mark; empty cells for null. Columns: " +
        Object.entries(TABLE_COLUMNS).map(([t, c]) => `${t}: ${c.join(", ")}`).join("; ") + ".",
    },
    auth: "dashboard",
    rateLimit: REPORT_EXPORT_RATE_LIMIT,
  },
  input: exportInput,
  output: null,
  successResponse: {
    description: "The CSV file (`Content-Disposition: attachment`).",
    content: {
      "text/csv": {
        schema: { type: "string" },
        example: TABLE_COLUMNS.agents.join(",") + "\r\n",
      },
    },
  },
};

export const reportExportRoutes: RawRoute[] = [{
  method: "GET",
  pattern: ["api", "dashboard", "reports", "export"],
  template: "/api/dashboard/reports/export",
  handle: (req, _params, deps) => handleExport(req, deps),
  openapi: operation,
}];
