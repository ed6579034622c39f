/**
 * The request handler: health probes, API docs, the tRPC door, raw routes
 * (SSE, static), then the REST door; one JSON log line per request.
 */
import { homeOrFavicon } from "./home_page.ts";
import type { AppDeps } from "../domain/deps.ts";
import { describeError } from "./logger.ts";
import { appRouter } from "../routers/app_router.ts";
import { openApiDocuments } from "../routers/doors/openapi_documents.ts";
import { createRequestContext } from "../routers/context.ts";
import { createTrpcDoor, TRPC_PREFIX } from "../routers/doors/trpc_door.ts";
import { clientIp } from "../routers/doors/client_ip.ts";
import {
  handleRest,
  jsonResponse,
  type RestMatch,
  RestRouteTable,
} from "../routers/doors/rest_door.ts";
import { matchRawRoute, rawRouteMethods, rawRoutes } from "../routers/raw_routes.ts";
import { API_DOCS_HTML, apiDocsResponse } from "../routers/doors/api_docs_page.ts";
import { serveAsset } from "../routers/doors/static_files.ts";
import { pageCsp } from "../routers/doors/page_csp.ts";
import { PROBE_TIMEOUT_MS } from "../db/database_watch.ts";
import { databaseUnavailable, toErrorReply } from "../routers/doors/http_errors.ts";
import { errorResponse } from "../routers/doors/rest_door.ts";
import { trpcErrorResponse } from "../routers/doors/trpc_door.ts";
import { isWidgetPath, widgetPreflight, withWidgetCors } from "../routers/widget/cors.ts";
import { siteGate } from "../domain/widget/site_gate.ts";
import { requestOrigin, SITE_REFUSED_MESSAGE } from "../domain/widget/site_rules.ts";
import { SOCKET_TEMPLATE, socketDoor } from "../routers/doors/socket_door.ts";
import { METRICS_PATH, metricsResponse } from "../routers/doors/metrics_door.ts";
import { recordHttpRequest } from "../domain/observability/metrics.ts";
import { nameRequestSpan } from "../domain/observability/tracing.ts";

export type Handler = (
  req: Request,
  info: { remoteAddr: Deno.Addr },
) => Response | Promise<Response>;

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
  const openApiDocument = openApiDocuments(() => deps.config.baseUrl);
  const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));
  let docsCsp: Promise<string> | null = null;
  const unavailable = () => toErrorReply(databaseUnavailable(), onFault);
  const guarded = deps.db.watch.guard;
  const trpcDoor = createTrpcDoor(appRouter, deps, onFault);
  const metricsToken = deps.config.metricsToken;
  const sites = siteGate(deps);
  let draining = false;
  const drain = () => {
    draining = true;
  };

  // Parameterless REST routes that no raw route shares a path with are
  // answered without trying the raw routes first (the common API request).
  const rawFree = new Set(
    table.exactRoutes().filter((m) => {
      const path = `/${m.route.segments.join("/")}`;
      return !(mayBeRaw(path) && matchRawRoute(m.route.method, path));
    }),
  );

  /** The response and its route template (for logs and metrics). */
  type Routed = [Response, string];

  // Not async: a request answered synchronously (the REST door's GET
  // procedures that need no I/O) costs no promise (docs/BENCHMARKS.md).
  function route(req: Request, path: string, search: string, ip: string): Routed | Promise<Routed> {
    const method = req.method;
    if (path === "/healthz") return [jsonResponse(200, { status: "ok" }), path];
    if (path === "/readyz") {
      if (draining) {
        return [
          jsonResponse(503, { status: "draining", checks: {} }, { "Retry-After": "1" }),
          path,
        ];
      }
      return readiness(deps).then((res) => [res, path]);
    }
    if (path === METRICS_PATH && metricsToken) {
      return metricsResponse(req, metricsToken).then((res) => [res, METRICS_PATH]);
    }
    if (path === "/" || path.startsWith("/favicon.")) {
      const home = homeOrFavicon(method, path);
      if (home) return [home, path];
    }
    if (path.startsWith("/api/openapi") && (method === "GET" || method === "HEAD")) {
      const document = openApiDocument(path);
      if (document) return document.then((asset) => [serveAsset(req, asset), path]);
    }
    if (path.startsWith("/api/docs") && (method === "GET" || method === "HEAD")) {
      return routeDocs(req, path, search, ip);
    }
    return routeDoors(req, path, search, ip);
  }

  async function routeDocs(
    req: Request,
    path: string,
    search: string,
    ip: string,
  ): Promise<Routed> {
    const docs = await apiDocsResponse(req, path);
    if (!docs) return await routeDoors(req, path, search, ip);
    if (docs.headers.get("content-type")?.startsWith("text/html")) {
      docs.headers.set(
        "content-security-policy",
        await (docsCsp ??= pageCsp(API_DOCS_HTML)),
      );
      docs.headers.set("referrer-policy", "strict-origin-when-cross-origin");
    }
    return [docs, "/api/docs"];
  }

  function routeDoors(
    req: Request,
    path: string,
    search: string,
    ip: string,
  ): Routed | Promise<Routed> {
    const method = req.method;
    if (path.startsWith(TRPC_PREFIX)) {
      return guarded(trpcDoor(req, path, ip), () => {
        const { body, headers } = unavailable();
        return trpcErrorResponse(503, body.message as string, req, path, headers);
      }).then((res) => [res, "/trpc/{procedure}"]);
    }
    if (path.startsWith("/app/")) {
      const socket = socketDoor(deps, req, path);
      if (socket) return [socket, SOCKET_TEMPLATE];
    }
    const exact = table.lookupExact(method, path);
    if (exact && rawFree.has(exact)) return rest(exact, req, search, ip);
    const raw = mayBeRaw(path) ? matchRawRoute(method, path) : null;
    if (raw) {
      const work = raw.route.handle(req, raw.params, deps, ip);
      const template = raw.route.template;
      return (raw.route.offline ? work : guarded(work, () => errorResponse(unavailable())))
        .then((res) => [res, template]);
    }
    const found = table.lookup(method, path);
    if (found.kind === "match") return rest(found.match, req, search, ip);
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

  function rest(
    match: RestMatch,
    req: Request,
    search: string,
    ip: string,
  ): Routed | Promise<Routed> {
    const ctx = createRequestContext(deps, req, ip);
    const template = match.route.template;
    const work = handleRest(match, search, ctx, onFault);
    // Answered at once: nothing to wait for, so no outage to guard against.
    if (!(work instanceof Promise)) return [work, template];
    return guarded(work, () => errorResponse(unavailable(), ctx.response.headers))
      .then((res) => [res, template]);
  }

  return Object.assign(handle, { drain });

  // Not async either: a request routed synchronously is answered without a
  // promise; one routed through a promise is finished when it settles.
  function handle(req: Request, info: { remoteAddr: Deno.Addr }): Response | Promise<Response> {
    const started = performance.now();
    deps.traffic.enter();
    let routed: Routed | Promise<Routed>;
    let widget = false;
    try {
      const [path, search] = splitUrl(req.url);
      const remote = info.remoteAddr.transport === "tcp" ? info.remoteAddr.hostname : "local";
      const ip = clientIp(req, remote, deps.config.trustedProxies);
      widget = isWidgetPath(path);
      routed = !widget
        ? route(req, path, search, ip)
        : req.method === "OPTIONS"
        ? [widgetPreflight(), "(widget preflight)"]
        : gateWidget(req, path, () => route(req, path, search, ip));
    } catch (err) {
      return finish(req, started, serverError(err), false);
    }
    if (routed instanceof Promise) {
      return routed.then(
        (r) => finish(req, started, r, widget),
        (err) => finish(req, started, serverError(err), false),
      );
    }
    return finish(req, started, routed, widget);
  }

  /**
   * A widget request from a page of a site the bot does not allow is refused
   * before its endpoint runs (docs/widget-api.md#allowed-sites). Synchronous
   * while the bot's list is kept: the visitor's path gains a map lookup.
   */
  function gateWidget(
    req: Request,
    path: string,
    next: () => Routed | Promise<Routed>,
  ): Routed | Promise<Routed> {
    const origin = requestOrigin(req);
    if (origin === null) return next();
    const key = widgetKeyOf(path);
    if (key === null) return next();
    const verdict = sites.allows(key, origin);
    if (verdict === true) return next();
    if (verdict === false) return siteRefused();
    return verdict.then(
      (ok) => ok ? next() : siteRefused(),
      () => [errorResponse(unavailable()), "(widget site check)"] as Routed,
    );
  }

  function serverError(err: unknown): Routed {
    onFault(err);
    return [jsonResponse(500, { message: "Server error." }), "(error)"];
  }

  /** CORS for the widget, nosniff, the metrics and the request's log line. */
  function finish(req: Request, started: number, routed: Routed, widget: boolean): Response {
    let [res, template] = routed;
    try {
      if (widget) res = withWidgetCors(res);
    } catch (err) {
      res = serverError(err)[0];
    } finally {
      deps.traffic.leave();
    }
    res = noSniff(res);
    const ms = performance.now() - started;
    // A 405's template is its raw path (for the log): metrics and traces keep a placeholder.
    const bounded = res.status === 405 ? "(method not allowed)" : template;
    recordHttpRequest(bounded, req.method, res.status, ms / 1000);
    const line: Record<string, unknown> = {
      method: req.method,
      route: template,
      status: res.status,
      duration_ms: Math.round(ms * 100) / 100,
    };
    const traceId = nameRequestSpan(req.method, bounded);
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

/** The bot key of a widget path (`k` for `/widget/k/stream`), or null. */
function widgetKeyOf(path: string): string | null {
  const end = path.indexOf("/", 8);
  const key = end === -1 ? path.slice(8) : path.slice(8, end);
  return key === "" ? null : key;
}

const siteRefused = (): [Response, string] => [
  jsonResponse(403, { message: SITE_REFUSED_MESSAGE }),
  "(widget site refused)",
];

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

/**
 * Ready only when the database answered the probe in flight (no earlier
 * answer is kept) and Redis answered its ping. Bounded: the database
 * probe decides within PROBE_TIMEOUT_MS on a free thread (PROBE_GIVE_UP_MS on
 * a saturated one, as not ready), Redis within PROBE_TIMEOUT_MS.
 */
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
