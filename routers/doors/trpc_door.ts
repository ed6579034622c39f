/**
 * The /trpc door: tRPC's own fetch handler, with what the REST door does
 * around it, so both doors behave alike: the same body cap (read before tRPC
 * sees the request, 413 past the procedure's limit), the guards' response
 * headers (X-RateLimit-*, Retry-After) on every answer, and our context.
 * A body the door cannot use (over the limit, or of a media type tRPC does
 * not read: `text/plain`, none) is refused where the REST door refuses an
 * unreadable one, at the first guard that reads the input
 * (doors/door_input.ts): after authentication and the rate limit, so a
 * login sent as `text/plain` is counted and its 415 carries X-RateLimit-*.
 */
import { type AnyRouter, TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { AppDeps } from "../../domain/deps.ts";
import { createRequestContext, type RequestContext } from "../context.ts";
import type { Meta } from "../trpc.ts";
import { QuotaExceeded, Unavailable } from "../../domain/errors.ts";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { trpcCodeForStatus } from "./http_errors.ts";
import { BodyTooLarge, DEFAULT_BODY_LIMIT, readBodyText } from "./request_body.ts";
import { UnreadBody } from "./door_input.ts";

export const TRPC_PREFIX = "/trpc/";

/** The media types tRPC's fetch adapter reads a request body as; any other is its 415. */
const TRPC_MEDIA_TYPES = new Set([
  "application/json",
  "multipart/form-data",
  "application/octet-stream",
]);

/** A 415 in our words (tRPC's own drops a quote and names no fix). */
function unsupportedMediaType(req: Request): TRPCError {
  const type = req.headers.get("content-type");
  const what = type === null
    ? "The Content-Type header is missing"
    : `The content type ${JSON.stringify(type)} is not supported`;
  return new TRPCError({
    code: "UNSUPPORTED_MEDIA_TYPE",
    message: `${what}: send the body as JSON (Content-Type: application/json).`,
  });
}

/** Why the body cannot be used as this request's input, or null (and its text, when read). */
async function readTrpcBody(
  req: Request,
  limit: number,
): Promise<{ text: string | null; unread: UnreadBody | null }> {
  const header = req.headers.get("content-type");
  const type = header === null ? null : header.split(";", 1)[0]!.trim().toLowerCase();
  if (type === null || !TRPC_MEDIA_TYPES.has(type)) {
    await req.body?.cancel().catch(() => {});
    return { text: null, unread: new UnreadBody(unsupportedMediaType(req)) };
  }
  if (!req.body) return { text: null, unread: null };
  try {
    return { text: await readBodyText(req, limit), unread: null };
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    const refusal = new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: err.message, cause: err });
    return { text: null, unread: new UnreadBody(refusal) };
  }
}

export type TrpcDoor = (req: Request, path: string, ip: string) => Promise<Response>;

export function createTrpcDoor(
  router: AnyRouter,
  deps: AppDeps,
  onFault: (err: unknown) => void,
): TrpcDoor {
  const limits = new Map<string, number>();
  const procedures = router._def.procedures as Record<string, { _def: { meta?: Meta } }>;
  for (const [name, proc] of Object.entries(procedures)) {
    const limit = proc._def.meta?.maxBodyBytes;
    if (limit !== undefined) limits.set(name, limit);
  }
  /** A batch (`a,b`) may carry the largest of its procedures' bodies. */
  const limitOf = (path: string) => {
    let limit = DEFAULT_BODY_LIMIT;
    for (const name of path.slice(TRPC_PREFIX.length).split(",")) {
      limit = Math.max(limit, limits.get(name) ?? DEFAULT_BODY_LIMIT);
    }
    return limit;
  };

  return async (req, path, ip) => {
    let request = req;
    let unread: UnreadBody | null = null;
    if (req.method !== "GET" && req.method !== "HEAD") {
      const body = await readTrpcBody(req, limitOf(path));
      unread = body.unread;
      if (unread) {
        // tRPC is handed an empty JSON body it accepts; the guards raise `unread`.
        const headers = new Headers(req.headers);
        headers.set("content-type", "application/json");
        headers.delete("content-length");
        request = new Request(req.url, { method: req.method, headers, body: "{}" });
      } else if (body.text !== null) {
        request = new Request(req.url, {
          method: req.method,
          headers: req.headers,
          body: body.text,
        });
      }
    }
    return await fetchRequestHandler({
      endpoint: "/trpc",
      req: request,
      router,
      createContext: () => {
        const ctx = createRequestContext(deps, request, ip);
        ctx.unreadBody = unread;
        return ctx;
      },
      // Rate-limit headers the guards set, on successes and refusals alike,
      // and Retry-After for a lockout or an unreachable database, as on REST.
      responseMeta: ({ ctx, errors }) => {
        const extras = (ctx as RequestContext | undefined)?.response;
        const headers = extras?.hasHeaders ? extras.headers : new Headers();
        for (const error of errors) {
          const cause = error.cause;
          if (
            (cause instanceof QuotaExceeded || cause instanceof Unavailable) &&
            cause.retryAfter !== null && !headers.has("retry-after")
          ) {
            headers.set("Retry-After", String(cause.retryAfter));
          }
        }
        return { headers };
      },
      onError: ({ error }) => {
        if (error.code === "INTERNAL_SERVER_ERROR") onFault(error.cause ?? error);
      },
    });
  };
}

/**
 * tRPC's error envelope (one per call of a batch) for a refusal decided
 * outside tRPC: a database that stopped answering (app/http_app.ts).
 */
export function trpcErrorResponse(
  status: number,
  message: string,
  req: Request,
  path: string,
  headers?: Record<string, string>,
): Response {
  const code = trpcCodeForStatus(status);
  const names = path.slice(TRPC_PREFIX.length).split(",");
  const shape = (name: string) => ({
    error: {
      message,
      code: TRPC_ERROR_CODES_BY_KEY[code as keyof typeof TRPC_ERROR_CODES_BY_KEY] ?? -32603,
      data: { code, httpStatus: status, path: name },
    },
  });
  const isBatch = new URL(req.url).searchParams.get("batch") === "1";
  return new Response(JSON.stringify(isBatch ? names.map(shape) : shape(names[0]!)), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
