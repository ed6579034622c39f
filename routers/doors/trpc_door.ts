/**
 * The /trpc door: tRPC's own fetch handler, with what the REST door does
 * around it, so both doors behave alike: the same body cap (read before tRPC
 * sees the request, 413 past the procedure's limit), the guards' response
 * headers (X-RateLimit-*, Retry-After) on every answer, and our context.
 */
import type { AnyRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { AppDeps } from "../../domain/deps.ts";
import { createRequestContext, type RequestContext } from "../context.ts";
import type { Meta } from "../trpc.ts";
import { QuotaExceeded, Unavailable } from "../../domain/errors.ts";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { trpcCodeForStatus } from "./http_errors.ts";
import { BodyTooLarge, DEFAULT_BODY_LIMIT, readBodyText } from "./request_body.ts";

export const TRPC_PREFIX = "/trpc/";

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
    if (req.body && req.method !== "GET" && req.method !== "HEAD") {
      let text: string;
      try {
        text = await readBodyText(req, limitOf(path));
      } catch (err) {
        if (err instanceof BodyTooLarge) return trpcErrorResponse(413, err.message, req, path);
        throw err;
      }
      request = new Request(req.url, { method: req.method, headers: req.headers, body: text });
    }
    return await fetchRequestHandler({
      endpoint: "/trpc",
      req: request,
      router,
      createContext: () => createRequestContext(deps, request, ip),
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
 * before tRPC ran: a body over the limit, a database that stopped answering.
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
