/**
 * Whether an error means the database could not be reached (as opposed to a
 * query it refused): the doors answer those 503 with Retry-After instead of
 * 500, since the same request will succeed once the database is back.
 */

/** Socket errors (Node's codes) and postgres.js's own connection errors. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
]);

/** SQLSTATEs of a server going away: class 08, admin/crash shutdown, starting up. */
function isUnavailableState(code: string): boolean {
  return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03";
}

export function isDatabaseUnreachable(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; cur && typeof cur === "object" && depth < 6; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && (CONNECTION_CODES.has(code) || isUnavailableState(code))) {
      return true;
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
