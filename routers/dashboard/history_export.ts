/**
 * GET /api/dashboard/conversations/export: the history's filtered list as a
 * CSV file, streamed (domain/history/export_history.ts). A raw route because
 * the answer is a file, not JSON; every refusal before the file starts is the
 * house's JSON error with the same token check, permission, rate limit and
 * 422 shape as the dashboard's procedures.
 */
import { TRPCError } from "@trpc/server";
import type { AppDeps } from "../../domain/deps.ts";
import type { RawRoute } from "../raw_routes.ts";
import type { DescribedOperation } from "../openapi/document.ts";
import { describeError } from "../../app/logger.ts";
import { authenticate } from "../../domain/auth/tokens.ts";
import { can } from "../../domain/auth/permissions.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import { Forbidden } from "../../domain/errors.ts";
import {
  EXPORT_COLUMNS,
  EXPORT_RETRY_AFTER_SECONDS,
  exportHistory,
  exportsBusyMessage,
} from "../../domain/history/export_history.ts";
import { EXPORTS_PER_INSTANCE } from "../../domain/history/export_gate.ts";
import { enforceRateLimit, type RateLimitSpec } from "../guards/rate_limit.ts";
import { toErrorReply } from "../doors/http_errors.ts";
import { errorResponse } from "../doors/rest_door.ts";
import { historyFilterInput } from "../schemas/history_filter.ts";
import { csvDownload } from "../doors/csv_download.ts";

export const EXPORT_RATE_LIMIT: RateLimitSpec = {
  name: "dashboard-export",
  limit: 10,
  windowSeconds: 60,
  by: "user",
};
/** Bulk personal data leaves the system: owners and administrators only. */
const PERMISSION = "manage-workspace" as const;

async function handleExport(req: Request, deps: AppDeps, ip: string): Promise<Response> {
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
    if (!can(auth.user.role, PERMISSION)) {
      throw new Forbidden("Exporting conversations is for owners and administrators.");
    }
    await enforceRateLimit(deps.kv, EXPORT_RATE_LIMIT, String(auth.user.id), headers);
    const query = Object.fromEntries(new URL(req.url).searchParams);
    const parsed = historyFilterInput.safeParse(query);
    if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
    const file = await exportHistory(
      {
        sql: deps.sql,
        gate: deps.exports,
        actor: req.method === "HEAD" ? null : actorOf(auth, ip),
      },
      auth.workspace,
      parsed.data,
      now,
      onFault,
    );
    return await csvDownload(req, headers, file);
  } catch (err) {
    return errorResponse(toErrorReply(err, onFault), headers);
  }
}

export const exportOperation: DescribedOperation = {
  name: "dashboard.exportConversations",
  meta: {
    openapi: {
      method: "GET",
      path: "/api/dashboard/conversations/export",
      summary: "The filtered conversation history as a CSV file, streamed",
      description: "The same filter as `GET /api/dashboard/conversations`, newest started " +
        "first, one line per conversation, every match (no paging). RFC 4180 with CRLF " +
        "line ends and a UTF-8 byte-order mark; a text cell starting with `=`, `+`, `-`, `@`, " +
        "tab or CR is prefixed with `'` so spreadsheets do not run it. Columns: " +
        EXPORT_COLUMNS.map((c) => `\`${c}\``).join(", ") + ". An instance streams at most " +
        `${EXPORTS_PER_INSTANCE} exports at once; another is refused with 503 and ` +
        `\`Retry-After: ${EXPORT_RETRY_AFTER_SECONDS}\`.`,
    },
    auth: "dashboard",
    permission: PERMISSION,
    rateLimit: EXPORT_RATE_LIMIT,
  },
  input: historyFilterInput,
  output: null,
  responses: {
    "503": {
      description: `Already ${EXPORTS_PER_INSTANCE} exports streaming on this instance (retry ` +
        "after `Retry-After` seconds), or the database unreachable.",
      headers: {
        "Retry-After": {
          description: "Seconds to wait before trying again.",
          schema: { type: "integer" },
        },
      },
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          example: { message: exportsBusyMessage(EXPORTS_PER_INSTANCE) },
        },
      },
    },
  },
  successResponse: {
    description: "The CSV file (`Content-Disposition: attachment`).",
    content: {
      "text/csv": {
        schema: { type: "string" },
        example: EXPORT_COLUMNS.join(",") + "\r\n",
      },
    },
  },
};

export const dashboardExportRoutes: RawRoute[] = [{
  method: "GET",
  pattern: ["api", "dashboard", "conversations", "export"],
  template: "/api/dashboard/conversations/export",
  handle: (req, _params, deps, ip) => handleExport(req, deps, ip),
  openapi: exportOperation,
}];
