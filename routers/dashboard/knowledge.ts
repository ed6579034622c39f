/**
 * A bot's knowledge in the dashboard: GET/POST /api/dashboard/chatbots/{key}/knowledge,
 * DELETE …/knowledge/{source} and POST …/knowledge/{source}/retrain. The
 * portal's own domain actions; the dashboard adds `updated_at` and retraining.
 */
import { z } from "zod";
import { KNOWLEDGE_BODY_LIMIT } from "../doors/request_body.ts";
import {
  newSourceFields,
  newSourceInput,
  sourceSchema,
  SYNC_NOW_RATE_LIMIT,
  syncScheduleFields,
} from "../schemas/knowledge_source.ts";
import { setSourceSyncSchedule } from "../../domain/knowledge/set_sync_schedule.ts";
import { syncSourceNow } from "../../domain/knowledge/sync_source_now.ts";
import { dashboardProcedure } from "../trpc.ts";
import { listSources } from "../../domain/knowledge/list_sources.ts";
import { createPortalSource } from "../../domain/knowledge/create_portal_source.ts";
import { deleteSource } from "../../domain/knowledge/delete_source.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import { retrainSource } from "../../domain/knowledge/retrain_source.ts";

const key = z.string().min(1).max(255);
const source = z.coerce.number().int().min(1);
export const dashboardSource = sourceSchema.extend({
  updated_at: z.string(),
  pages_failed: z.int().nullable().meta({
    description: "Pages found that could not be fetched or used (url sources; null otherwise)",
  }),
  pages_skipped: z.int().nullable().meta({
    description: "Pages found and left out on purpose: noindex, no new text, a duplicate",
  }),
});

export const listKnowledge = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/chatbots/{key}/knowledge",
      summary: "A bot's knowledge sources with their state, chunk count, crawl progress and dates",
    },
  })
  .input(z.object({ key }))
  .output(z.object({ data: z.array(dashboardSource) }))
  .query(async ({ ctx, input }) => ({
    data: await listSources(ctx.deps.sql, ctx.auth!.workspace.id, input.key),
  }));

export const addKnowledge = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/chatbots/{key}/knowledge",
      summary: "Add a text, Q&A or website source, indexed in the background",
      description: "The portal's create: 201 with the source `pending`; it moves to " +
        "`processing`, then `ready` (or `failed` with `error`). `text` needs `content`; `qa` " +
        "needs `question` and `answer`; `url` needs `source_url`, whose site is crawled.",
      created: true,
      requestExample: { type: "text", title: "Returns", content: "Returns are free for 30 days." },
    },
    permission: "manage-content",
    maxBodyBytes: KNOWLEDGE_BODY_LIMIT,
  })
  .input(z.object({ key, ...newSourceFields }))
  .output(z.object({ data: dashboardSource }))
  .mutation(async ({ ctx, input }) => {
    const { key: botKey, ...fields } = input;
    const data = await createPortalSource(
      ctx.deps,
      ctx.auth!.workspace.id,
      botKey,
      newSourceInput(fields),
    );
    ctx.response.status = 201;
    return { data };
  });

export const deleteKnowledge = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/chatbots/{key}/knowledge/{source}",
      summary: "Remove a knowledge source with its crawled pages and chunks",
      responseExample: { message: "Knowledge source deleted." },
    },
    permission: "manage-content",
  })
  .input(z.object({ key, source }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    deleteSource(ctx.deps, ctx.auth!.workspace.id, input.key, input.source, {
      actor: actorOf(ctx.auth!, ctx.ip),
      now: ctx.now,
    })
  );

export const retrainKnowledge = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/chatbots/{key}/knowledge/{source}/retrain",
      summary: "Index a source again (a website is crawled afresh)",
      description: "The source goes back to `pending` and is indexed again in the " +
        "background; its current chunks keep answering until the new ones replace them.",
    },
    permission: "manage-content",
  })
  .input(z.object({ key, source }))
  .output(z.object({ data: dashboardSource }))
  .mutation(async ({ ctx, input }) => ({
    data: await retrainSource(ctx.deps, ctx.auth!.workspace.id, input.key, input.source),
  }));

export const setKnowledgeSchedule = dashboardProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/dashboard/chatbots/{key}/knowledge/{source}/schedule",
      summary: "Keep a website source in sync: crawl it again off, daily or weekly",
      description: "Url sources only (422 otherwise). The next sync is due one interval " +
        "from now (`next_sync_at`); it runs once across instances, as Sync now does.",
      requestExample: { sync_schedule: "daily" },
    },
    permission: "manage-content",
  })
  .input(z.object({ key, source: source, ...syncScheduleFields }))
  .output(z.object({ data: dashboardSource }))
  .mutation(async ({ ctx, input }) => ({
    data: await setSourceSyncSchedule(
      ctx.deps,
      ctx.auth!.workspace.id,
      input.key,
      input.source,
      input.sync_schedule,
    ),
  }));

export const syncKnowledge = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/chatbots/{key}/knowledge/{source}/sync",
      summary: "Sync a website source now; 409 while it is being indexed",
      description: "The site is crawled again in the background: pages are fetched " +
        "conditionally (ETag, Last-Modified), unchanged text is not re-embedded, new pages " +
        "are added and gone ones removed; `last_sync` then says what was found.",
    },
    permission: "manage-content",
    rateLimit: SYNC_NOW_RATE_LIMIT,
  })
  .input(z.object({ key, source: source }))
  .output(z.object({ data: dashboardSource }))
  .mutation(async ({ ctx, input }) => ({
    data: await syncSourceNow(ctx.deps, ctx.auth!.workspace.id, input.key, input.source),
  }));
