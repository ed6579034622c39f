/**
 * The typed client of the owners' dashboard (`/dashboard`): tRPC's own client
 * over `/trpc`, typed by the server's `AppRouter` (a type-only import, so the
 * browser bundle holds none of the server's code). A procedure whose input or
 * output changes in a way the app does not follow fails `deno task check`.
 */
import { createTRPCClient, httpLink } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../routers/app_router.ts";

export { type CallFailure, describeFailure, tokenNeedsRefresh } from "./agent_client.ts";

export type DashboardOutputs = inferRouterOutputs<AppRouter>["dashboard"];
export type DashboardInputs = inferRouterInputs<AppRouter>["dashboard"];
/** What login and refresh return: the token and the session it opens. */
export type DashboardSession = DashboardOutputs["login"];
export type Permission = DashboardSession["permissions"][number];

export interface DashboardClientOptions {
  /** The server's origin; `location.origin` in the page it serves. */
  baseUrl: string;
  /** The current dashboard token, read per request so a renewed one is used at once. */
  token: () => string | null;
  /** Told when the server answers 401 (token expired or revoked), to sign the user out. */
  onUnauthorized?: () => void;
}

export function createDashboardClient(opts: DashboardClientOptions) {
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${opts.baseUrl.replace(/\/+$/, "")}/trpc`,
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          if (res.status === 401 && opts.token() !== null) opts.onUnauthorized?.();
          return res;
        },
        headers: (): Record<string, string> => {
          const token = opts.token();
          return token ? { authorization: `Bearer ${token}` } : {};
        },
      }),
    ],
  });
  return client.dashboard;
}

export type DashboardClient = ReturnType<typeof createDashboardClient>;

/** The history's filter as the list and the export take it. */
export type HistoryFilter = Omit<DashboardInputs["listConversations"], "cursor" | "per_page">;

/**
 * The filtered history as a CSV file (`GET /api/dashboard/conversations/export`,
 * a streamed raw route, outside tRPC): the response, for the caller to save.
 */
export async function fetchConversationsCsv(
  opts: Pick<DashboardClientOptions, "baseUrl" | "token">,
  filter: HistoryFilter,
): Promise<Response> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(filter)) if (v) query.set(k, String(v));
  const token = opts.token();
  return await fetch(
    `${opts.baseUrl.replace(/\/+$/, "")}/api/dashboard/conversations/export?${query}`,
    { headers: token ? { authorization: `Bearer ${token}` } : {} },
  );
}

/** The audit log's filter as the list and the export take it. */
export type AuditFilter = Omit<DashboardInputs["listAuditLog"], "cursor" | "per_page">;

/**
 * The filtered audit log as a CSV file (`GET /api/dashboard/audit-log/export`,
 * a raw route outside tRPC): the response, for the caller to save.
 */
export async function fetchAuditLogCsv(
  opts: Pick<DashboardClientOptions, "baseUrl" | "token">,
  filter: AuditFilter,
): Promise<Response> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(filter)) if (v) query.set(k, String(v));
  const token = opts.token();
  return await fetch(
    `${opts.baseUrl.replace(/\/+$/, "")}/api/dashboard/audit-log/export?${query}`,
    { headers: token ? { authorization: `Bearer ${token}` } : {} },
  );
}

/** The report's parameters, as `GET /api/dashboard/reports` and its export take them. */
export type ReportQuery = DashboardInputs["report"];

/** One of the report's tables as a CSV file (`GET /api/dashboard/reports/export`). */
export async function fetchReportCsv(
  opts: Pick<DashboardClientOptions, "baseUrl" | "token">,
  query: ReportQuery,
  table: "agents" | "bots" | "tags",
): Promise<Response> {
  const params = new URLSearchParams({ table });
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, String(v));
  const token = opts.token();
  return await fetch(
    `${opts.baseUrl.replace(/\/+$/, "")}/api/dashboard/reports/export?${params}`,
    { headers: token ? { authorization: `Bearer ${token}` } : {} },
  );
}
