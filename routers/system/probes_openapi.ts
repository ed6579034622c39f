/**
 * GET /healthz and GET /readyz in the OpenAPI document. The app answers them
 * before any routing (app/http_app.ts), so they describe themselves here with
 * the same meta a procedure declares.
 */
import { z } from "zod";
import type { DescribedOperation } from "../openapi/document.ts";
import { toSchema } from "../openapi/json_schema.ts";

const readiness = z.object({
  status: z.enum(["ready", "unavailable"]),
  checks: z.object({ database: z.boolean(), redis: z.boolean().optional() }),
});

export const probeOperations: DescribedOperation[] = [
  {
    name: "system.healthz",
    meta: {
      openapi: {
        method: "GET",
        path: "/healthz",
        summary: "Liveness: the process answers",
        description: "Answered before any routing or database access; for container probes.",
      },
    },
    input: null,
    output: z.object({ status: z.literal("ok") }),
  },
  {
    name: "system.readyz",
    meta: {
      openapi: {
        method: "GET",
        path: "/readyz",
        summary: "Readiness: the database (and Redis, when configured) answer",
        description: '503 with the same body shape and `status: "unavailable"` while a ' +
          "dependency does not answer; a load balancer should send no traffic then.",
        errors: [503],
        responseExample: { status: "ready", checks: { database: true, redis: true } },
      },
    },
    input: null,
    output: readiness,
    responses: {
      "503": {
        description: "A dependency does not answer.",
        content: {
          "application/json": {
            schema: toSchema(readiness, "output"),
            example: { status: "unavailable", checks: { database: true, redis: false } },
          },
        },
      },
    },
  },
];
