/**
 * PostgreSQL `text` and `jsonb` cannot hold U+0000, so a NUL anywhere in the
 * input would reach the database and fail as a 500. It is refused up front as
 * a 422 naming the field, on every door.
 */
import { Invalid } from "../../domain/errors.ts";

/** Throw Invalid (422) naming the first field whose string (or key) holds a NUL. */
export function rejectNulCharacters(input: unknown): void {
  const field = fieldWithNul(input, "", 0);
  if (field === null) return;
  const name = field || "body";
  const label = (name.split(".").pop() ?? name).replace(/_/g, " ");
  throw Invalid.field(name, `The ${label} field must not contain a NUL character.`);
}

function fieldWithNul(value: unknown, path: string, depth: number): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (value === null || typeof value !== "object" || depth > 32) return null;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  for (const [k, v] of entries) {
    if (k.includes("\u0000")) return path;
    const hit = fieldWithNul(v, path ? `${path}.${k}` : k, depth + 1);
    if (hit !== null) return hit;
  }
  return null;
}
