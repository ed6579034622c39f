/**
 * Routes that are not tRPC procedures: the widget's SSE stream and static
 * assets. The app consults them before the REST door.
 */
import type { AppDeps } from "../app/deps.ts";
import { widgetStreamRoutes } from "./widget/stream_routes.ts";
import { widgetAssetRoutes } from "../widget/asset_routes.ts";

export interface RawRoute {
  method: "GET" | "POST";
  /** Path segments; `null` matches any one segment, passed in `params`. */
  pattern: (string | null)[];
  /** Route template for logs, e.g. `/widget/{key}/stream`. */
  template: string;
  handle(req: Request, params: string[], deps: AppDeps, ip: string): Promise<Response>;
}

export const rawRoutes: RawRoute[] = [...widgetStreamRoutes, ...widgetAssetRoutes];

export function matchRawRoute(
  method: string,
  pathname: string,
): { route: RawRoute; params: string[] } | null {
  const parts = pathname.split("/").filter(Boolean);
  for (const route of rawRoutes) {
    if (route.method !== method && !(method === "HEAD" && route.method === "GET")) continue;
    if (route.pattern.length !== parts.length) continue;
    const params: string[] = [];
    let ok = true;
    for (let i = 0; i < parts.length; i++) {
      const seg = route.pattern[i];
      if (seg === null) params.push(decodeURIComponent(parts[i]!));
      else if (seg !== parts[i]) {
        ok = false;
        break;
      }
    }
    if (ok) return { route, params };
  }
  return null;
}
