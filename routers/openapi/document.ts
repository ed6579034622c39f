/**
 * The OpenAPI 3.1 document, generated from the procedures themselves: routes
 * and words from `meta.openapi`, security from the builder (`meta.auth`),
 * statuses from `statuses.ts`, schemas from the zod input and output, and
 * examples from meta or the schemas. Operations outside tRPC (the widget's
 * SSE stream) describe themselves the same way (`DescribedOperation`).
 */
import type { AnyRouter } from "@trpc/server";
import type { z } from "zod";
import type { Meta } from "../trpc.ts";
import {
  ERROR_RESPONSE_NAMES,
  RESPONSES,
  SCHEMAS,
  SECURITY_SCHEMES,
  surfaceOf,
  SURFACES,
} from "./components.ts";
import { exampleOf } from "./examples.ts";
import { type JsonSchema, objectParts, toSchema } from "./json_schema.ts";
import { operationStatuses, pathParams } from "./statuses.ts";

/** An operation as the generator sees it: a procedure, or a raw route that describes itself. */
export interface DescribedOperation {
  /** `v1.sendMessage`: becomes the operationId `v1SendMessage`. */
  name: string;
  meta: Meta;
  input: z.ZodType | null;
  output: z.ZodType | null;
  /** A success response other than JSON of `output` (the SSE stream). */
  successResponse?: Record<string, unknown>;
  /** Responses by status that differ from the shared error bodies (a probe's 503). */
  responses?: Record<string, unknown>;
  /** A request body other than JSON of the input's body fields (a multipart upload). */
  requestBody?: Record<string, unknown>;
}

interface ProcedureDef {
  meta?: Meta;
  inputs: z.ZodType[];
  output?: z.ZodType;
}

/** Every procedure of `router` that has a REST route. */
export function describeProcedures(router: AnyRouter): DescribedOperation[] {
  const procedures = router._def.procedures as Record<string, { _def: ProcedureDef }>;
  const out: DescribedOperation[] = [];
  for (const [name, proc] of Object.entries(procedures)) {
    const meta = proc._def.meta;
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    out.push({ name, meta, input: proc._def.inputs[0] ?? null, output: proc._def.output ?? null });
  }
  return out;
}

export interface DocumentInfo {
  baseUrl: string;
  version: string;
  /**
   * One surface's tag: the document holds its operations alone (`/api/openapi/{slug}.json`,
   * what the reference page draws, a surface at a time).
   */
  surface?: string;
}

export function buildOpenApiDocument(ops: DescribedOperation[], info: DocumentInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  const used = new Set<string>();
  for (const op of ops) {
    const { method, path } = op.meta.openapi!;
    if (info.surface && surfaceOf(path) !== info.surface) continue;
    (paths[path] ??= {})[method.toLowerCase()] = operation(op);
    used.add(surfaceOf(path));
  }
  // Only what some operation refers to: an unused component is noise in the reference.
  const text = JSON.stringify(paths);
  const responses = Object.fromEntries(
    Object.entries(RESPONSES).filter(([name]) => text.includes(`/responses/${name}"`)),
  );
  const schemes = Object.values(SECURITY_SCHEMES).filter((s) => text.includes(`"${s.name}"`));
  return {
    openapi: "3.1.0",
    info: {
      title: info.surface ? `Parley API: ${info.surface}` : "Parley API",
      version: info.version,
      description: "Parley's HTTP surfaces: the integration API (`/api/v1`), the white-label " +
        "portal (`/api/portal`), the agent inbox (`/api/agent`), the public widget endpoints " +
        "(`/widget/{key}/…`) and the service status. Every error body is `{message}`; validation " +
        "failures add `errors`, keyed by field. Each operation lists exactly the statuses it " +
        "can answer.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: info.baseUrl, description: "This server" }],
    tags: SURFACES.filter((s) => used.has(s.tag)).map((s) => ({
      name: s.tag,
      description: s.description,
    })),
    paths: sortPaths(paths),
    components: {
      schemas: SCHEMAS,
      responses,
      securitySchemes: Object.fromEntries(schemes.map((s) => [s.name, s.scheme])),
    },
  };
}

/** Paths grouped by surface (the reference's reading order), then as declared. */
function sortPaths(paths: Record<string, Record<string, unknown>>) {
  const rank = (p: string) => SURFACES.findIndex((s) => s.tag === surfaceOf(p));
  return Object.fromEntries(Object.entries(paths).sort(([a], [b]) => rank(a) - rank(b)));
}

function operation(op: DescribedOperation): Record<string, unknown> {
  const meta = op.meta;
  const o = meta.openapi!;
  const input = op.input ? toSchema(op.input, "input") : { type: "object", properties: {} };
  const { properties, required } = objectParts(input);
  const inPath = new Set(pathParams(o.path));
  const parameters: Record<string, unknown>[] = [];
  const bodyProps: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (inPath.has(name)) {
      parameters.push(parameter(name, "path", schema, true));
    } else if (o.method === "GET" || o.method === "DELETE") {
      parameters.push(parameter(name, "query", schema, required.includes(name)));
    } else {
      bodyProps[name] = schema;
    }
  }
  const statuses = operationStatuses(meta, Object.keys(properties).length > 0);
  const responses: Record<string, unknown> = {};
  const output = op.output ? toSchema(op.output, "output") : {};
  for (const status of statuses.success) {
    responses[String(status)] = op.successResponse ?? {
      description: successText(status),
      content: {
        "application/json": {
          schema: output,
          example: o.responseExample ?? exampleOf(output),
        },
      },
    };
  }
  for (const status of statuses.errors) {
    responses[String(status)] = op.responses?.[String(status)] ??
      { $ref: `#/components/responses/${ERROR_RESPONSE_NAMES[status]}` };
  }
  const description = describe(o.description ?? "", meta);
  const out: Record<string, unknown> = {
    tags: [surfaceOf(o.path)],
    summary: o.summary,
    ...(description ? { description } : {}),
    operationId: operationId(op.name),
    // Public operations say so explicitly: no token is sent.
    // Several abilities (the account procedures): any one of the schemes opens it.
    security: [meta.auth ?? []].flat().map((a) => ({ [SECURITY_SCHEMES[a].name]: [] })),
  };
  if (parameters.length) out.parameters = parameters;
  if (Object.keys(bodyProps).length) {
    const bodySchema: JsonSchema = {
      ...input,
      properties: bodyProps,
      required: required.filter((r) => r in bodyProps),
    };
    const anyRequired = (bodySchema.required as string[]).length > 0;
    if (!anyRequired) delete bodySchema.required;
    out.requestBody = {
      // An empty body reads as `{}`: the body is required only when a field is.
      required: anyRequired,
      content: {
        "application/json": {
          schema: bodySchema,
          example: o.requestExample ?? exampleOf(bodySchema),
        },
      },
    };
  }
  if (op.requestBody) out.requestBody = op.requestBody;
  out.responses = responses;
  return out;
}

function parameter(name: string, where: "path" | "query", schema: JsonSchema, required: boolean) {
  const { description, ...rest } = schema;
  const example = exampleOf(schema, name);
  return {
    name,
    in: where,
    required,
    ...(typeof description === "string" ? { description } : {}),
    schema: rest,
    ...(example === null ? {} : { example }),
  };
}

/** The operation's own words, then the rules a reader needs that meta already states. */
function describe(text: string, meta: Meta): string {
  const notes: string[] = [];
  if (meta.permission) notes.push(`Requires the \`${meta.permission}\` permission.`);
  const limit = meta.rateLimit;
  if (limit) {
    const per = limit.by === "ip" ? "IP address" : "user";
    notes.push(`Rate limit: ${limit.limit} requests per ${limit.windowSeconds} s per ${per}.`);
  }
  return [text, ...notes].filter(Boolean).join("\n\n");
}

function successText(status: number): string {
  return status === 201 ? "Created." : "OK.";
}

function operationId(name: string): string {
  return name.split(".").map((part, i) => (i === 0 ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join("");
}
