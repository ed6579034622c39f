/**
 * Which statuses an operation can answer, derived from what its procedure
 * already declares, so a new procedure gets a true list without extra words:
 *
 * - success: 200; `created: true` → 201; `created: "if-new"` → 201 and 200
 * - a body to read (any method but GET) → 400 (not a JSON object) and 413
 *   (larger than the route's body limit)
 * - a token surface (`auth`, set by `authedProcedure`) → 401 and 403
 * - path parameters (records) → 404, unless `notFound: false`
 * - input fields → 422 (every string field also refuses a NUL character)
 * - `rateLimit` in meta → 429
 * - always → 500, and 503 (the database unreachable, or the server draining)
 * - `errors` in meta → whatever the domain adds (409, 429 quota, 502 provider…)
 */
import type { Meta } from "../trpc.ts";

export interface OperationStatuses {
  success: number[];
  errors: number[];
}

export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

export function operationStatuses(meta: Meta, hasInputFields: boolean): OperationStatuses {
  const op = meta.openapi!;
  const success = op.created === true ? [201] : op.created === "if-new" ? [201, 200] : [200];
  const errors = new Set<number>([500, 503, ...(op.errors ?? [])]);
  if (op.method !== "GET") {
    errors.add(400);
    errors.add(413);
  }
  if (meta.auth) {
    errors.add(401);
    errors.add(403);
  }
  if (pathParams(op.path).length > 0 && op.notFound !== false) errors.add(404);
  if (hasInputFields) errors.add(422);
  if (meta.rateLimit) errors.add(429);
  return { success, errors: [...errors].sort((a, b) => a - b) };
}
