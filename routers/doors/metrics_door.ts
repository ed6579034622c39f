/**
 * GET /metrics: the Prometheus exposition, for a scraper holding the bearer
 * token METRICS_TOKEN (docs/operations.md). Without a configured token the
 * path does not exist; without the right token it answers 401 and reveals
 * nothing.
 */
import { renderMetrics } from "../../domain/observability/metrics.ts";
import { jsonResponse } from "./rest_door.ts";

export const METRICS_PATH = "/metrics";

export async function metricsResponse(req: Request, token: string): Promise<Response> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return jsonResponse(405, {
      message: `The ${req.method} method is not supported for this route.`,
    }, {
      Allow: "GET, HEAD",
    });
  }
  const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  if (given === undefined || !sameSecret(given, token)) {
    return jsonResponse(401, { message: "Unauthenticated." }, {
      "WWW-Authenticate": 'Bearer realm="metrics"',
      "cache-control": "no-store",
    });
  }
  const { body, contentType } = await renderMetrics();
  return new Response(req.method === "HEAD" ? null : body, {
    headers: { "content-type": contentType, "cache-control": "no-store" },
  });
}

/** Compared in time independent of where the strings differ. */
function sameSecret(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a.charCodeAt(i) || 0) ^ b.charCodeAt(i);
  return diff === 0;
}
