/**
 * Routes that are not tRPC procedures: the widget's SSE stream and static
 * assets (widget.js, the demo page, the agents' web inbox). The app consults them before the REST door.
 */
import type { AppDeps } from "../domain/deps.ts";
import type { DescribedOperation } from "./openapi/document.ts";
import { widgetStreamRoutes } from "./widget/stream_routes.ts";
import { widgetAssetRoutes } from "../widget/asset_routes.ts";
import { inboxAssetRoutes } from "../inbox/asset_routes.ts";
import { dashboardAssetRoutes } from "../dashboard/asset_routes.ts";
import { dashboardTryRoutes } from "./dashboard/try_stream.ts";
import { dashboardExportRoutes } from "./dashboard/history_export.ts";
import { dashboardAuditExportRoutes } from "./dashboard/audit_log_export.ts";
import { reportExportRoutes } from "./dashboard/reports_export.ts";
import { knowledgeUploadRoutes } from "./knowledge_upload_routes.ts";

export interface RawRoute {
  method: "GET" | "POST";
  /** Path segments; `null` matches any one segment, passed in `params`. */
  pattern: (string | null)[];
  /** Route template for logs, e.g. `/widget/{key}/stream`. */
  template: string;
  /** Answers without the database (static assets): no outage check needed. */
  offline?: boolean;
  handle(req: Request, params: string[], deps: AppDeps, ip: string): Promise<Response>;
  /** Its entry in the OpenAPI document, for API routes (assets have none). */
  openapi?: DescribedOperation;
}

export const rawRoutes: RawRoute[] = [
  ...widgetStreamRoutes,
  ...widgetAssetRoutes,
  ...inboxAssetRoutes,
  ...dashboardAssetRoutes,
  ...dashboardTryRoutes,
  ...dashboardExportRoutes,
  ...dashboardAuditExportRoutes,
  ...reportExportRoutes,
  ...knowledgeUploadRoutes,
];

export function matchRawRoute(
  method: string,
  pathname: string,
): { route: RawRoute; params: string[] } | null {
  const parts = pathname.split("/").filter(Boolean);
  for (const route of rawRoutes) {
    if (route.method !== method && !(method === "HEAD" && route.method === "GET")) continue;
    const params = matchPattern(route, parts);
    if (params) return { route, params };
  }
  return null;
}

/** Methods of the raw routes at `pathname`, for a 405's `Allow` header. */
export function rawRouteMethods(pathname: string): string[] {
  const parts = pathname.split("/").filter(Boolean);
  return rawRoutes.filter((route) => matchPattern(route, parts)).map((route) => route.method);
}

/** The decoded parameters, or null when the path does not fit (or is not decodable). */
function matchPattern(route: RawRoute, parts: string[]): string[] | null {
  if (route.pattern.length !== parts.length) return null;
  const params: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const seg = route.pattern[i];
    if (seg === null) {
      try {
        params.push(decodeURIComponent(parts[i]!));
      } catch {
        return null; // malformed percent-encoding: no such path
      }
    } else if (seg !== parts[i]) {
      return null;
    }
  }
  return params;
}
