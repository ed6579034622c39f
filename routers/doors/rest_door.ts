/**
 * The REST door: every procedure with `meta.openapi` answers at its documented
 * path and method. The route table is built once at start (trpc-to-openapi's
 * own fetch handler rebuilds it per request, ~50x slower); procedures are then
 * invoked directly with the merged path, query and body input.
 */
import { doorInput, UnreadBody } from "./door_input.ts";
import type { AnyRouter } from "@trpc/server";
import type { RequestContext } from "../context.ts";
import { type ErrorReply, toErrorReply } from "./http_errors.ts";
import { BodyTooLarge, DEFAULT_BODY_LIMIT, readBodyText } from "./request_body.ts";
import {
  type CompiledProcedure,
  compileProcedure,
  type ProcedureDef,
  type ProcedureResult,
  runProcedure,
} from "./invoke_procedure.ts";

interface Route {
  name: string;
  method: string;
  template: string;
  /** Literal segment, or null for a `{param}` at that position. */
  segments: (string | null)[];
  params: string[];
  proc: CompiledProcedure;
}

export interface RestMatch {
  route: Route;
  params: Record<string, string>;
}

export type RestLookup =
  | { kind: "match"; match: RestMatch }
  | { kind: "method"; allow: string[] }
  | { kind: "none" };

export class RestRouteTable {
  private byLength = new Map<number, Route[]>();
  /** Parameterless routes by `METHOD path`: the common case needs no scan. */
  private exact = new Map<string, RestMatch>();

  constructor(router: AnyRouter) {
    const procedures = router._def.procedures as Record<string, { _def: ProcedureDef }>;
    const routes: Route[] = [];
    for (const [name, proc] of Object.entries(procedures)) {
      const openapi = proc._def.meta?.openapi;
      if (!openapi || openapi.enabled === false) continue;
      const parts = openapi.path.split("/").filter(Boolean);
      routes.push({
        name,
        method: openapi.method,
        template: openapi.path,
        segments: parts.map((p) => (p.startsWith("{") ? null : p)),
        params: parts.filter((p) => p.startsWith("{")).map((p) => p.slice(1, -1)),
        proc: compileProcedure(name, proc._def),
      });
    }
    // Literal segments beat parameters position by position (`/inbox` before `/{id}`).
    const rank = (r: Route) => r.segments.map((s) => (s === null ? "1" : "0")).join("");
    routes.sort((a, b) => rank(a).localeCompare(rank(b)));
    for (const r of routes) {
      if (r.params.length === 0) {
        const key = `${r.method} /${r.segments.join("/")}`;
        if (!this.exact.has(key)) this.exact.set(key, { route: r, params: {} });
      }
      const list = this.byLength.get(r.segments.length) ?? [];
      list.push(r);
      this.byLength.set(r.segments.length, list);
    }
  }

  /** The parameterless route at exactly this method and path (HEAD finds GET). */
  lookupExact(method: string, pathname: string): RestMatch | undefined {
    return this.exact.get(`${method === "HEAD" ? "GET" : method} ${pathname}`);
  }

  /** Every parameterless route, with its method and path. */
  exactRoutes(): RestMatch[] {
    return [...this.exact.values()];
  }

  lookup(method: string, pathname: string): RestLookup {
    // A literal route beats any parameterised one, so an exact hit is final.
    const exact = this.lookupExact(method, pathname);
    if (exact) return { kind: "match", match: exact };
    const parts = pathname.split("/").filter(Boolean);
    const allow = new Set<string>();
    for (const route of this.byLength.get(parts.length) ?? []) {
      const params = matchSegments(route, parts);
      if (!params) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) {
        return { kind: "match", match: { route, params } };
      }
      allow.add(route.method);
    }
    return allow.size > 0 ? { kind: "method", allow: [...allow] } : { kind: "none" };
  }
}

function matchSegments(route: Route, parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  let p = 0;
  for (let i = 0; i < parts.length; i++) {
    const seg = route.segments[i];
    const part = parts[i]!;
    if (seg === null) {
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return null;
      }
      params[route.params[p++]!] = value;
    } else if (seg !== part) {
      return null;
    }
  }
  return params;
}

export class BadRequest extends Error {}

async function readBody(req: Request, limit: number): Promise<Record<string, unknown>> {
  if (req.method === "GET" || req.method === "HEAD") return {};
  const text = await readBodyText(req, limit);
  if (text.trim() === "") return {};
  // Pusher clients (pusher-js, Laravel Echo) post broadcasting/auth as a form.
  if (req.headers.get("content-type")?.startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequest("The request body is not valid JSON.");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new BadRequest("The request body must be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}

function queryObject(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (search.length <= 1) return out;
  for (const [k, v] of new URLSearchParams(search)) out[k] = v;
  return out;
}

const JSON_TYPE = "application/json; charset=utf-8";

const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": JSON_TYPE };

export function jsonResponse(status: number, body: unknown, headers?: HeadersInit): Response {
  if (headers === undefined) {
    return new Response(JSON.stringify(body), { status, headers: { "content-type": JSON_TYPE } });
  }
  const h = new Headers(headers);
  h.set("content-type", JSON_TYPE);
  return new Response(JSON.stringify(body), { status, headers: h });
}

export function errorResponse(reply: ErrorReply, extra?: Headers): Response {
  const h = new Headers(extra);
  for (const [k, v] of Object.entries(reply.headers ?? {})) h.set(k, v);
  return jsonResponse(reply.status, reply.body, h);
}

/**
 * Run a matched route: input from path, query (`search`, the URL's `?...`
 * part or "") and body; output as JSON. Synchronous when the procedure is (a
 * GET whose chain answers at once): no promise between the request and the
 * response (docs/BENCHMARKS.md).
 */
export function handleRest(
  match: RestMatch,
  search: string,
  ctx: RequestContext,
  onFault: (err: unknown) => void,
): Response | Promise<Response> {
  const method = ctx.req.method;
  if (method !== "GET" && method !== "HEAD") return handleRestWithBody(match, search, ctx, onFault);
  let result: ProcedureResult | Promise<ProcedureResult>;
  try {
    result = runProcedure(
      match.route.proc,
      ctx,
      doorInput(queryObject(search), null, match.params),
    );
  } catch (err) {
    return restFailure(err, ctx, onFault);
  }
  return result instanceof Promise
    ? result.then((r) => restAnswer(r, method, ctx, onFault))
    : restAnswer(result, method, ctx, onFault);
}

async function handleRestWithBody(
  match: RestMatch,
  search: string,
  ctx: RequestContext,
  onFault: (err: unknown) => void,
): Promise<Response> {
  const { route, params } = match;
  let input: Record<string, unknown> | UnreadBody;
  try {
    const body = await readBody(ctx.req, route.proc.meta?.maxBodyBytes ?? DEFAULT_BODY_LIMIT);
    input = doorInput(queryObject(search), body, params);
  } catch (err) {
    if (!(err instanceof BodyTooLarge || err instanceof BadRequest)) {
      return restFailure(err, ctx, onFault);
    }
    input = new UnreadBody(err);
  }
  let result: ProcedureResult;
  try {
    result = await runProcedure(route.proc, ctx, input);
  } catch (err) {
    return restFailure(err, ctx, onFault);
  }
  return restAnswer(result, ctx.req.method, ctx, onFault);
}

/** The response for a procedure's result: its output as JSON, or the error's reply. */
function restAnswer(
  result: ProcedureResult,
  method: string,
  ctx: RequestContext,
  onFault: (err: unknown) => void,
): Response {
  if (!result.ok) return restFailure(result.error, ctx, onFault);
  try {
    const status = ctx.response.status ?? 200;
    if (method === "HEAD") {
      return new Response(null, { status, headers: ctx.response.headers });
    }
    if (!ctx.response.hasHeaders) {
      return new Response(JSON.stringify(result.data), { status, headers: JSON_HEADERS });
    }
    // The context's own headers object goes out as is: one copy, not two.
    const headers = ctx.response.headers;
    headers.set("content-type", JSON_TYPE);
    return new Response(JSON.stringify(result.data), { status, headers });
  } catch (err) {
    return restFailure(err, ctx, onFault);
  }
}

function restFailure(
  thrown: unknown,
  ctx: RequestContext,
  onFault: (err: unknown) => void,
): Response {
  // A body read error comes back from the chain wrapped (door_input.ts).
  const cause = (thrown as { cause?: unknown }).cause;
  const err = cause instanceof BodyTooLarge || cause instanceof BadRequest ? cause : thrown;
  if (err instanceof BodyTooLarge) {
    return jsonResponse(413, { message: err.message }, ctx.response.headers);
  }
  if (err instanceof BadRequest) {
    return jsonResponse(400, { message: err.message }, ctx.response.headers);
  }
  return errorResponse(toErrorReply(err, onFault), ctx.response.headers);
}
