/**
 * GET /api/dashboard/audit-log/export: the filtered audit log as a CSV file,
 * streamed (domain/audit/export_audit_log.ts). A raw route because the
 * answer is a file; every refusal before it starts is the house's JSON error,
 * with the token check and permission of the list.
 */
import { TRPCError } from "@trpc/server";
import type { AppDeps } from "../../domain/deps.ts";
import type { RawRoute } from "../raw_routes.ts";
import type { DescribedOperation } from "../openapi/document.ts";
import { describeError } from "../../app/logger.ts";
import { authenticate } from "../../domain/auth/tokens.ts";
import { can } from "../../domain/auth/permissions.ts";
import { Forbidden } from "../../domain/errors.ts";
import { AUDIT_EXPORT_COLUMNS, exportAuditLog } from "../../domain/audit/export_audit_log.ts";
import { enforceRateLimit, type RateLimitSpec } from "../guards/rate_limit.ts";
import { toErrorReply } from "../doors/http_errors.ts";
import { errorResponse } from "../doors/rest_door.ts";
import { auditFilterInput } from "../schemas/audit_filter.ts";
import { csvDownload } from "../doors/csv_download.ts";

const RATE_LIMIT: RateLimitSpec = {
  name: "dashboard-audit-export",
  limit: 10,
  windowSeconds: 60,
  by: "user",
};
const PERMISSION = "manage-workspace" as const;

async function handleExport(req: Request, deps: AppDeps): Promise<Response> {
  const headers = new Headers();
  const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));
  try {
    const now = deps.clock();
    const auth = await authenticate(deps.sql, req.headers.get("authorization"), "dashboard", now);
    if (!can(auth.user.role, PERMISSION)) {
      throw new Forbidden("The audit log is for owners and administrators.");
    }
    await enforceRateLimit(deps.kv, RATE_LIMIT, String(auth.user.id), headers);
    const query = Object.fromEntries(new URL(req.url).searchParams);
    const parsed = auditFilterInput.safeParse(query);
    if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
    const file = exportAuditLog(deps.sql, auth.workspace, parsed.data, now, onFault);
    return await csvDownload(req, headers, file);
  } catch (err) {
    return errorResponse(toErrorReply(err, onFault), headers);
  }
}

export const auditExportOperation: DescribedOperation = {
  name: "dashboard.exportAuditLog",
  meta: {
    openapi: {
      method: "GET",
      path: "/api/dashboard/audit-log/export",
      summary: "The filtered audit log as a CSV file, newest first",
      description: "The same filter as `GET /api/dashboard/audit-log`, every matching row (no " +
        "paging). RFC 4180 with CRLF line ends and a UTF-8 byte-order mark; a text cell " +
        "starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'`. Columns: " +
        AUDIT_EXPORT_COLUMNS.map((c) => `\`${c}\``).join(", ") + " (`details` as JSON).",
    },
    auth: "dashboard",
    permission: PERMISSION,
    rateLimit: RATE_LIMIT,
  },
  input: auditFilterInput,
  output: null,
  successResponse: {
    description: "The CSV file (`Content-Disposition: attachment`).",
    content: {
      "text/csv": {
        schema: { type: "string" },
        example: AUDIT_EXPORT_COLUMNS.join(",") + "\r\n",
      },
    },
  },
};

export const dashboardAuditExportRoutes: RawRoute[] = [{
  method: "GET",
  pattern: ["api", "dashboard", "audit-log", "export"],
  template: "/api/dashboard/audit-log/export",
  handle: (req, _params, deps) => handleExport(req, deps),
  openapi: auditExportOperation,
}];
