/** GET /api/v1/me: the token's user and workspace. */
import { z } from "zod";
import { apiProcedure } from "../trpc.ts";
import { describeCaller } from "../../domain/workspaces/describe_caller.ts";

export const me = apiProcedure
  .meta({ openapi: { method: "GET", path: "/api/v1/me", tags: ["v1"], summary: "The caller" } })
  .input(z.object({}))
  .output(z.object({
    user: z.object({ id: z.number(), name: z.string(), email: z.string(), role: z.string() }),
    company: z.object({ id: z.number(), name: z.string(), slug: z.string(), plan: z.string() }),
  }))
  .query(({ ctx }) => describeCaller(ctx.auth!));
