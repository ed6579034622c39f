/**
 * The request handler: health probes, API docs, the tRPC door, raw routes
 * (SSE, static), then the REST door; one JSON log line per request.
 */
import type { AppDeps } from "../domain/deps.ts";
import { describeError } from "./logger.ts";
import { appRouter } from "../routers/app_router.ts";
import { buildOpenApiDocument } from "../routers/openapi/document.ts";
import { apiOperations } from "../routers/openapi/api_operations.ts";
import { API_VERSION } from "../routers/system/status.ts";
import { createRequestContext } from "../routers/context.ts";
import { createTrpcDoor, TRPC_PREFIX } from "../routers/doors/trpc_door.ts";
import { clientIp } from "../routers/doors/client_ip.ts";
import { handleRest, jsonResponse, RestRouteTable } from "../routers/doors/rest_door.ts";
import { matchRawRoute, rawRouteMethods, rawRoutes } from "../routers/raw_routes.ts";
import { API_DOCS_HTML, apiDocsResponse } from "../routers/doors/api_docs_page.ts";
import { makeAsset, serveAsset, type StaticAsset } from "../routers/doors/static_files.ts";
import { pageCsp } from "../routers/doors/page_csp.ts";
import { PROBE_TIMEOUT_MS } from "../db/database_watch.ts";
import { databaseUnavailable, toErrorReply } from "../routers/doors/http_errors.ts";
import { errorResponse } from "../routers/doors/rest_door.ts";
import { trpcErrorResponse } from "../routers/doors/trpc_door.ts";
import { isWidgetPath, widgetPreflight, withWidgetCors } from "../routers/widget/cors.ts";
import { SOCKET_TEMPLATE, socketDoor } from "../routers/doors/socket_door.ts";
import { METRICS_PATH, metricsResponse } from "../routers/doors/metrics_door.ts";
import { recordHttpRequest } from "../domain/observability/metrics.ts";
import { nameRequestSpan } from "../domain/observability/tracing.ts";

export type Handler = (req: Request, info: { remoteAddr: Deno.Addr }) => Promise<Response>;

/** The handler, plus the first step of a graceful stop. */
export type HttpApp = Handler & {
  /**
   * From now on `/readyz` answers 503, so a balancer that checks it stops
   * sending new work here. Requests still arriving are served: refusing them
   * would fail a client that a balancer cannot safely retry (a POST already
   * sent). `server.shutdown()` then stops accepting connections.
   */
  drain(): void;
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
  let docsCsp: Promise<string> | null = null;
  const unavailable = () => toErrorReply(databaseUnavailable(), onFault);
  const guarded = deps.db.watch.guard;
  const trpcDoor = createTrpcDoor(appRouter, deps, onFault);
  const metricsToken = deps.config.metricsToken;
  let draining = false;
  const drain = () => {
    draining = true;
  };

  async function route(
    req: Request,
    path: string,
    search: string,
    ip: string,
  ): Promise<[Response, string]> {
    const method = req.method;
    if (path === "/healthz") return [jsonResponse(200, { status: "ok" }), path];
    if (path === "/readyz") {
      if (draining) {
        return [
          jsonResponse(503, { status: "draining", checks: {} }, { "Retry-After": "1" }),
          path,
        ];
      }
      return [await readiness(deps), path];
    }
    if (path === METRICS_PATH && metricsToken) {
      return [await metricsResponse(req, metricsToken), METRICS_PATH];
    }
    if (path === "/api/openapi.json" && (method === "GET" || method === "HEAD")) {
      return [serveAsset(req, await openApi()), path];
    }
    if (path.startsWith("/api/docs") && (method === "GET" || method === "HEAD")) {
      const docs = await apiDocsResponse(req, path);
      if (docs) {
        if (docs.headers.get("content-type")?.startsWith("text/html")) {
          docs.headers.set(
            "content-security-policy",
            await (docsCsp ??= pageCsp(API_DOCS_HTML)),
          );
          docs.headers.set("referrer-policy", "strict-origin-when-cross-origin");
        }
        return [docs, "/api/docs"];
      }
    }
    if (path.startsWith(TRPC_PREFIX)) {
      return [
        await guarded(trpcDoor(req, path, ip), () => {
          const { body, headers } = unavailable();
          return trpcErrorResponse(503, body.message as string, req, path, headers);
        }),
        "/trpc/{procedure}",
      ];
    }
    if (path.startsWith("/app/")) {
      const socket = socketDoor(deps, req, path);
      if (socket) return [socket, SOCKET_TEMPLATE];
    }
    const raw = mayBeRaw(path) ? matchRawRoute(method, path) : null;
    if (raw) {
      const work = raw.route.handle(req, raw.params, deps, ip);
      return [
        await (raw.route.offline ? work : guarded(work, () => errorResponse(unavailable()))),
        raw.route.template,
      ];
    }
    const found = table.lookup(method, path);
    if (found.kind === "match") {
      const ctx = createRequestContext(deps, req, ip);
      return [
        await guarded(
          handleRest(found.match, search, ctx, onFault),
          () => errorResponse(unavailable(), ctx.response.headers),
        ),
        found.match.route.template,
      ];
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

  return Object.assign(handle, { drain });

  // One async layer for the whole request: each extra one costs a promise
  // and an await on every request (docs/BENCHMARKS.md).
  async function handle(req: Request, info: { remoteAddr: Deno.Addr }): Promise<Response> {
    const started = performance.now();
    let res: Response;
    let template = "(error)";
    deps.traffic.enter();
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
      deps.traffic.leave();
    }
    res = noSniff(res);
    const ms = performance.now() - started;
    // A 405's template is its raw path (for the log): metrics keep labels bounded.
    recordHttpRequest(
      res.status === 405 ? "(method not allowed)" : template,
      req.method,
      res.status,
      ms / 1000,
    );
    const line: Record<string, unknown> = {
      method: req.method,
      route: template,
      status: res.status,
      duration_ms: Math.round(ms * 100) / 100,
    };
    const traceId = nameRequestSpan(req.method, template);
    if (traceId) line.trace_id = traceId;
    deps.log.info("request", line);
    return res;
  }
}

/** No response is ever sniffed into another type (a JSON echo rendered as HTML, …). */
function noSniff(res: Response): Response {
  try {
    res.headers.set("x-content-type-options", "nosniff");
    return res;
  } catch { // immutable headers (a proxied or redirect response): copy once
    const copy = new Response(res.body, res);
    copy.headers.set("x-content-type-options", "nosniff");
    return copy;
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

/** Every check is bounded (PROBE_TIMEOUT_MS), so /readyz answers in under a second. */
async function readiness(deps: AppDeps): Promise<Response> {
  const checks: Record<string, boolean> = {};
  const [database, redis] = await Promise.all([
    deps.db.watch.reachable(),
    deps.config.redisUrl ? withinProbeTime(deps.kv.ping()) : Promise.resolve(null),
  ]);
  checks.database = database;
  if (redis !== null) checks.redis = redis;
  const ok = Object.values(checks).every(Boolean);
  return jsonResponse(ok ? 200 : 503, { status: ok ? "ready" : "unavailable", checks });
}

function withinProbeTime(check: Promise<boolean>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    check.catch(() => false),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS)),
  ]).finally(() => clearTimeout(timer));
}
