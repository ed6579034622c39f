/**
 * GET /api/status: a public liveness answer through the REST door itself
 * (unlike /healthz, which the app answers before routing). Uptime monitors
 * use it to prove the whole procedure pipeline works; the REST-door benchmark
 * uses it as the trivial procedure measured against a bare `Deno.serve`.
 */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";

export const API_VERSION = "1.0.0";

export const status = publicProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/status",
      summary: "Service status (no authentication)",
      description: "Answers through the whole procedure pipeline, so uptime monitors see what " +
        "clients see.",
    },
  })
  .input(z.object({}))
  .output(z.object({ status: z.literal("ok"), version: z.string() }))
  .query(() => ({ status: "ok" as const, version: API_VERSION }));
