/**
 * The request handler: health probes, API docs, the tRPC door, raw routes
 * (SSE, static), then the REST door; one JSON log line per request.
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { generateOpenApiDocument } from "trpc-to-openapi";
import type { AppDeps } from "./deps.ts";
import { describeError } from "./logger.ts";
import { appRouter } from "../routers/app_router.ts";
import { createRequestContext } from "../routers/context.ts";
import { clientIp } from "../routers/doors/client_ip.ts";
import { handleRest, jsonResponse, RestRouteTable } from "../routers/doors/rest_door.ts";
import { matchRawRoute } from "../routers/raw_routes.ts";
import { API_DOCS_HTML } from "../routers/doors/api_docs_page.ts";
import { isWidgetPath, widgetPreflight, withWidgetCors } from "../routers/widget/cors.ts";

export type Handler = (req: Request, info: { remoteAddr: Deno.Addr }) => Promise<Response>;

export function createHttpApp(deps: AppDeps): Handler {
  const table = new RestRouteTable(appRouter);
  let openApiJson: string | null = null;
  const openApi = () =>
    openApiJson ??= JSON.stringify(generateOpenApiDocument(appRouter, {
      title: "Parley API",
      version: "1.0.0",
      baseUrl: deps.config.baseUrl,
      description: "Integration v1, portal, agent and widget endpoints of Parley.",
    }));
  const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));

  async function route(req: Request, url: URL, ip: string): Promise<[Response, string]> {
    const path = url.pathname;
    const method = req.method;
    if (path === "/healthz") return [jsonResponse(200, { status: "ok" }), path];
    if (path === "/readyz") return [await readiness(deps), path];
    if (path === "/api/openapi.json" && (method === "GET" || method === "HEAD")) {
      return [new Response(openApi(), { headers: { "content-type": "application/json" } }), path];
    }
    if (path === "/api/docs" && (method === "GET" || method === "HEAD")) {
      return [
        new Response(API_DOCS_HTML, { headers: { "content-type": "text/html; charset=utf-8" } }),
        path,
      ];
    }
    if (path.startsWith("/trpc/")) {
      const res = await fetchRequestHandler({
        endpoint: "/trpc",
        req,
        router: appRouter,
        createContext: () => createRequestContext(deps, req, ip),
        onError: ({ error }) => {
          if (error.code === "INTERNAL_SERVER_ERROR") onFault(error.cause ?? error);
        },
      });
      return [res, "/trpc/{procedure}"];
    }
    const raw = matchRawRoute(method, path);
    if (raw) return [await raw.route.handle(req, raw.params, deps, ip), raw.route.template];
    const found = table.lookup(method, path);
    if (found.kind === "match") {
      const ctx = createRequestContext(deps, req, ip);
      return [await handleRest(found.match, url, ctx, onFault), found.match.route.template];
    }
    if (found.kind === "method") {
      return [
        jsonResponse(405, { message: `The ${method} method is not supported for this route.` }, {
          Allow: found.allow.join(", "),
        }),
        path,
      ];
    }
    return [jsonResponse(404, { message: "Not found." }), "(unmatched)"];
  }

  return async (req, info) => {
    const started = performance.now();
    const url = new URL(req.url);
    const remote = info.remoteAddr.transport === "tcp" ? info.remoteAddr.hostname : "local";
    const ip = clientIp(req, remote, deps.config.trustedProxies);
    let res: Response;
    let template = "(error)";
    try {
      [res, template] = isWidgetPath(url.pathname) && req.method === "OPTIONS"
        ? [widgetPreflight(), "(widget preflight)"]
        : await route(req, url, ip);
      if (isWidgetPath(url.pathname)) res = withWidgetCors(res);
    } catch (err) {
      onFault(err);
      res = jsonResponse(500, { message: "Server error." });
    }
    deps.log.info("request", {
      method: req.method,
      route: template,
      status: res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return res;
  };
}

async function readiness(deps: AppDeps): Promise<Response> {
  const checks: Record<string, boolean> = {};
  try {
    await deps.sql`SELECT 1`;
    checks.database = true;
  } catch {
    checks.database = false;
  }
  if (deps.config.redisUrl) checks.redis = await deps.kv.ping();
  const ok = Object.values(checks).every(Boolean);
  return jsonResponse(ok ? 200 : 503, { status: ok ? "ready" : "unavailable", checks });
}
