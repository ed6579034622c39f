/**
 * The one input rule for text that may reach the database, applied by every
 * door (REST, /trpc, the widget stream) before any procedure runs:
 * - PostgreSQL `text` and `jsonb` cannot hold U+0000;
 * - `jsonb` refuses a lone UTF-16 surrogate (`"\ud800"`), and a `text`
 *   column would silently store U+FFFD instead of what was sent;
 * - free-form objects (`meta`) may nest at most MAX_INPUT_DEPTH levels below
 *   the body, so the walk below always reaches every accepted value.
 * Each is a 422 naming the field, never a database fault (500) later.
 */
import { Invalid } from "../../domain/errors.ts";

/** Levels of nesting below the request body (the body's own fields are level 1). */
export const MAX_INPUT_DEPTH = 16;

/** Throw Invalid (422) naming the first field that could not be stored as sent. */
export function rejectUnstorableInput(input: unknown): void {
  const found = findUnstorable(input, "", 0);
  if (found === null) return;
  const [path, problem] = found;
  if (problem === "depth") {
    const field = path.split(".")[0] || "body";
    throw Invalid.field(
      field,
      `The ${label(field)} field must not be nested more than ${MAX_INPUT_DEPTH} levels deep.`,
    );
  }
  const field = path || "body";
  const reason = problem === "nul"
    ? "must not contain a NUL character"
    : "must not contain an unpaired surrogate (invalid Unicode)";
  throw Invalid.field(field, `The ${label(field)} field ${reason}.`);
}

type Problem = "nul" | "surrogate" | "depth";

function label(field: string): string {
  return (field.split(".").pop() ?? field).replace(/_/g, " ");
}

function textProblem(text: string): Problem | null {
  if (text.includes("\u0000")) return "nul";
  return text.isWellFormed() ? null : "surrogate";
}

function findUnstorable(value: unknown, path: string, depth: number): [string, Problem] | null {
  if (depth > MAX_INPUT_DEPTH) return [path, "depth"];
  if (typeof value === "string") {
    const problem = textProblem(value);
    return problem ? [path, problem] : null;
  }
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (hit !== null) return hit;
    }
    return null;
  }
  for (const k in value) {
    const keyProblem = textProblem(k);
    if (keyProblem) return [path, keyProblem];
    const v = (value as Record<string, unknown>)[k];
    const hit = findUnstorable(v, path ? `${path}.${k}` : k, depth + 1);
    if (hit !== null) return hit;
  }
  return null;
}
