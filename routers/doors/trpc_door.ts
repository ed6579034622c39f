/**
 * The /trpc door: tRPC's own fetch handler, with what the REST door does
 * around it, so both doors behave alike: the same body cap (read before tRPC
 * sees the request, 413 past the procedure's limit), the guards' response
 * headers (X-RateLimit-*, Retry-After) on every answer, and our context.
 */
import type { AnyRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { AppDeps } from "../../app/deps.ts";
import { createRequestContext, type RequestContext } from "../context.ts";
import type { Meta } from "../trpc.ts";
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
        if (err instanceof BodyTooLarge) return payloadTooLarge(err.message, path, req.url);
        throw err;
      }
      request = new Request(req.url, { method: req.method, headers: req.headers, body: text });
    }
    return await fetchRequestHandler({
      endpoint: "/trpc",
      req: request,
      router,
      createContext: () => createRequestContext(deps, request, ip),
      // Rate-limit headers the guards set, on successes and refusals alike.
      responseMeta: ({ ctx }) => {
        const extras = (ctx as RequestContext | undefined)?.response;
        return extras?.hasHeaders ? { headers: extras.headers } : {};
      },
      onError: ({ error }) => {
        if (error.code === "INTERNAL_SERVER_ERROR") onFault(error.cause ?? error);
      },
    });
  };
}

/** tRPC's error envelope for a body refused before tRPC read it (one per call of a batch). */
function payloadTooLarge(message: string, path: string, url: string): Response {
  const names = path.slice(TRPC_PREFIX.length).split(",");
  const shape = (name: string) => ({
    error: {
      message,
      code: -32013,
      data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path: name },
    },
  });
  const isBatch = new URL(url).searchParams.get("batch") === "1";
  return new Response(JSON.stringify(isBatch ? names.map(shape) : shape(names[0]!)), {
    status: 413,
    headers: { "content-type": "application/json" },
  });
}
