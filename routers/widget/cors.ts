/**
 * CORS for the widget's public endpoints: widget.js runs on customers' sites
 * and calls us cross-origin. No cookies or tokens are involved, so any origin
 * may call, and the rate-limit headers are exposed for clients to read.
 */

const ALLOW_HEADERS = "Content-Type, Accept, Last-Event-ID";
const EXPOSE_HEADERS = "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining";

/** Whether a path belongs to the widget surface. */
export function isWidgetPath(pathname: string): boolean {
  return pathname.startsWith("/widget/");
}

/** The answer to a preflight request (`OPTIONS`) on a widget path. */
export function widgetPreflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
      "Access-Control-Allow-Headers": ALLOW_HEADERS,
      "Access-Control-Max-Age": "86400",
    },
  });
}

/** Add the CORS headers to a widget response (its headers must be mutable). */
export function withWidgetCors(res: Response): Response {
  try {
    res.headers.set("Access-Control-Allow-Origin", "*");
    res.headers.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    return res;
  } catch {
    // Immutable headers (a fetched response): copy into a new response.
    const headers = new Headers(res.headers);
    headers.set("Access-Control-Allow-Origin", "*");
    headers.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}
