/** GET /api/portal/catalogue and POST /api/portal/catalogue/sync: the linked store's products. */
import { z } from "zod";
import { portalProcedure } from "../trpc.ts";
import { catalogueStatus, requestCatalogueSync } from "../../domain/catalogue/catalogue_status.ts";

const statusSchema = z.object({
  linked: z.boolean(),
  shop: z.string().nullable(),
  status: z.enum(["none", "pending", "syncing", "ready", "failed"]),
  products: z.int(),
  synced_at: z.string().nullable(),
  error: z.string().nullable(),
});

export const showCatalogue = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/catalogue",
      summary: "The product catalogue synced from the linked store",
      description: "Whether a store is linked, the last sync's status, product count and " +
        "time, and its error when it failed. Products are recommended by the widget " +
        "(docs/answering.md).",
    },
  })
  .input(z.object({}))
  .output(z.object({ data: statusSchema }))
  .query(async ({ ctx }) => ({
    data: await catalogueStatus(ctx.deps.sql, ctx.auth!.workspace.id),
  }));

export const syncCatalogue = portalProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/catalogue/sync",
      summary: "Sync the catalogue from the linked store now",
      description: "Queues a sync at once (it runs in the background; `status` is `pending`, " +
        "then `syncing`, then `ready` or `failed`). 422 when no store is linked.",
    },
    permission: "manage-content",
  })
  .input(z.object({}))
  .output(z.object({ data: statusSchema }))
  .mutation(async ({ ctx }) => ({
    data: await requestCatalogueSync(ctx.deps, ctx.auth!.workspace.id),
  }));
