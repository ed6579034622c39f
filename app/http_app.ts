/**
 * The request handler: health probes, API docs, the tRPC door, raw routes
 * (SSE, static), then the REST door; one JSON log line per request.
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { AppDeps } from "./deps.ts";
import { describeError } from "./logger.ts";
import { appRouter } from "../routers/app_router.ts";
import { buildOpenApiDocument } from "../routers/openapi/document.ts";
import { apiOperations } from "../routers/openapi/api_operations.ts";
import { API_VERSION } from "../routers/system/status.ts";
import { createRequestContext } from "../routers/context.ts";
import { clientIp } from "../routers/doors/client_ip.ts";
import { handleRest, jsonResponse, RestRouteTable } from "../routers/doors/rest_door.ts";
import { matchRawRoute, rawRouteMethods, rawRoutes } from "../routers/raw_routes.ts";
import { apiDocsResponse } from "../routers/doors/api_docs_page.ts";
import { makeAsset, serveAsset, type StaticAsset } from "../routers/doors/static_files.ts";
import { isWidgetPath, widgetPreflight, withWidgetCors } from "../routers/widget/cors.ts";

export type Handler = (req: Request, info: { remoteAddr: Deno.Addr }) => Promise<Response>;

/** The handler, plus the first half of a graceful stop. */
export type HttpApp = Handler & {
  /**
   * Refuse new requests (503) and resolve once those in flight have their
   * response, or after `timeoutMs`. Call before `server.shutdown()`: Deno's
   * shutdown cuts request bodies still being uploaded, so the drain comes first.
   */
  drain(timeoutMs?: number): Promise<void>;
};

export function createHttpApp(deps: AppDeps): HttpApp {
  const table = new RestRouteTable(appRouter);
  // Raw routes are tried only under their own first segments (`widget`, …).
  const rawFirst = new Set(rawRoutes.map((r) => r.pattern[0] ?? null));
  const mayBeRaw = (path: string) =>
    rawFirst.has(null) || path.startsWith("//") || rawFirst.has(firstSegment(path));
  // Generated on the first request (about 0.1 s), then served from memory with an ETag and gzip.
  let openApiAsset: Promise<StaticAsset> | null = null;
  const openApi = () =>
    openApiAsset ??= makeAsset(
      JSON.stringify(buildOpenApiDocument(
        apiOperations(),
        { baseUrl: deps.config.baseUrl, version: API_VERSION },
      )),
      "application/json; charset=utf-8",
      "no-cache",
    );
  const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));

  async function route(
    req: Request,
    path: string,
    search: string,
    ip: string,
  ): Promise<[Response, string]> {
    const method = req.method;
    if (path === "/healthz") return [jsonResponse(200, { status: "ok" }), path];
    if (path === "/readyz") return [await readiness(deps), path];
    if (path === "/api/openapi.json" && (method === "GET" || method === "HEAD")) {
      return [serveAsset(req, await openApi()), path];
    }
    if (path.startsWith("/api/docs") && (method === "GET" || method === "HEAD")) {
      const docs = await apiDocsResponse(req, path);
      if (docs) return [docs, "/api/docs"];
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
    const raw = mayBeRaw(path) ? matchRawRoute(method, path) : null;
    if (raw) return [await raw.route.handle(req, raw.params, deps, ip), raw.route.template];
    const found = table.lookup(method, path);
    if (found.kind === "match") {
      const ctx = createRequestContext(deps, req, ip);
      return [await handleRest(found.match, search, ctx, onFault), found.match.route.template];
    }
    const allow = found.kind === "method" ? found.allow : [];
    if (mayBeRaw(path)) allow.push(...rawRouteMethods(path));
    if (allow.length > 0) {
      return [
        jsonResponse(405, { message: `The ${method} method is not supported for this route.` }, {
          Allow: allow.join(", "),
        }),
        path,
      ];
    }
    return [jsonResponse(404, { message: "Not found." }), "(unmatched)"];
  }

  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | null = null;

  const drain = (timeoutMs = 10_000): Promise<void> => {
    draining = true;
    if (inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  };

  return Object.assign(handle, { drain });

  // One async layer for the whole request: each extra one costs a promise
  // and an await on every request (docs/BENCHMARKS.md).
  async function handle(req: Request, info: { remoteAddr: Deno.Addr }): Promise<Response> {
    if (draining) {
      return jsonResponse(503, { message: "The server is shutting down." }, { "Retry-After": "1" });
    }
    inFlight++;
    const started = performance.now();
    let res: Response;
    let template = "(error)";
    try {
      const [path, search] = splitUrl(req.url);
      const remote = info.remoteAddr.transport === "tcp" ? info.remoteAddr.hostname : "local";
      const ip = clientIp(req, remote, deps.config.trustedProxies);
      const widget = isWidgetPath(path);
      [res, template] = widget && req.method === "OPTIONS"
        ? [widgetPreflight(), "(widget preflight)"]
        : await route(req, path, search, ip);
      if (widget) res = withWidgetCors(res);
    } catch (err) {
      onFault(err);
      res = jsonResponse(500, { message: "Server error." });
    } finally {
      if (--inFlight === 0 && idle) idle();
    }
    deps.log.info("request", {
      method: req.method,
      route: template,
      status: res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return res;
  }
}

/** The first segment of an absolute path: `widget` for `/widget/k/stream`. */
function firstSegment(path: string): string {
  const end = path.indexOf("/", 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

/**
 * Path and `?query` of a request URL without building a URL object (a
 * measurable share of a trivial request). Anything unusual, such as dot
 * segments or a backslash, takes the full WHATWG parse, which normalises them.
 */
export function splitUrl(raw: string): [string, string] {
  const start = raw.indexOf("/", raw.indexOf("//") + 2);
  if (start === -1) return ["/", ""];
  const q = raw.indexOf("?", start);
  const path = q === -1 ? raw.slice(start) : raw.slice(start, q);
  if (path.includes("/.") || path.includes("%") || path.includes("\\") || path.includes("#")) {
    const url = new URL(raw);
    return [url.pathname, url.search];
  }
  return [path, q === -1 ? "" : raw.slice(q)];
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
