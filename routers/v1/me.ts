/** GET /api/v1/me: the token's user and workspace. */
import { z } from "zod";
import { apiProcedure } from "../trpc.ts";
import { describeCaller } from "../../domain/workspaces/describe_caller.ts";

export const me = apiProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/v1/me",
      summary: "The token's user and workspace",
      description: "A suspended account or workspace is 403.",
    },
  })
  .input(z.object({}))
  .output(z.object({
    user: z.object({ id: z.int(), name: z.string(), email: z.string(), role: z.string() }),
    company: z.object({ id: z.int(), name: z.string(), slug: z.string(), plan: z.string() }),
  }))
  .query(({ ctx }) => describeCaller(ctx.auth!));
