/**
 * Zod schemas as OpenAPI 3.1 schemas (JSON Schema 2020-12), through zod's own
 * `toJSONSchema`. Two corrections: no `$schema` key inside the document, and
 * no ±(2^53-1) bounds that `.int()` adds (they say "a safe integer", which an
 * integer type already implies for every client we know of, and they read as
 * noise in the reference).
 */
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

export function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return clean(out) as JsonSchema;
}

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === "minimum" && v === -SAFE) || (k === "maximum" && v === SAFE)) continue;
    out[k] = clean(v);
  }
  return out;
}

/** The object schema's properties and required names (an empty object for anything else). */
export function objectParts(
  schema: JsonSchema,
): { properties: Record<string, JsonSchema>; required: string[] } {
  return {
    properties: (schema.properties ?? {}) as Record<string, JsonSchema>,
    required: (schema.required ?? []) as string[],
  };
}
