/**
 * The workspace's retention period (docs/dashboard.md#contacts): read by any
 * dashboard member, changed by owners and administrators.
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { readRetentionDays } from "../../db/retention.ts";
import { setRetention } from "../../domain/retention/set_retention.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";

const setting = z.object({
  retention_days: z.int().nullable().meta({
    description: "Days after which resolved conversations are deleted (30 to 3650); null: kept.",
  }),
});

export const showRetention = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/retention",
      summary: "How long resolved conversations are kept",
    },
  })
  .input(z.object({}))
  .output(z.object({ data: setting }))
  .query(async ({ ctx }) => ({
    data: { retention_days: await readRetentionDays(ctx.deps.sql, ctx.auth!.workspace.id) },
  }));

export const updateRetention = dashboardProcedure
  .meta({
    permission: "manage-workspace",
    openapi: {
      method: "PUT",
      path: "/api/dashboard/retention",
      summary: "Set how long resolved conversations are kept (null: until erased)",
      description: "30 days to 10 years. Applied by the next retention run: resolved " +
        "conversations quiet for longer are deleted with their messages, and visitors left " +
        "with no conversation.",
      requestExample: { retention_days: 365 },
    },
  })
  .input(z.object({ retention_days: z.number().nullable() }))
  .output(z.object({ data: setting }))
  .mutation(async ({ ctx, input }) => ({
    data: await setRetention(
      ctx.deps,
      ctx.auth!.workspace.id,
      input.retention_days,
      actorOf(ctx.auth!, ctx.ip),
    ),
  }));
