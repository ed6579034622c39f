/** GET/POST /api/portal/chatbots/{key}/knowledge and DELETE …/knowledge/{source}. */
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
import { portalProcedure } from "../trpc.ts";
import { listSources } from "../../domain/knowledge/list_sources.ts";
import { createPortalSource } from "../../domain/knowledge/create_portal_source.ts";
import { deleteSource } from "../../domain/knowledge/delete_source.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";

const key = z.string().min(1).max(255);

export const listKnowledge = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/chatbots/{key}/knowledge",
      summary: "A bot's knowledge sources with their indexing state",
    },
  })
  .input(z.object({ key }))
  .output(z.object({ data: z.array(sourceSchema) }))
  .query(async ({ ctx, input }) => ({
    data: await listSources(ctx.deps.sql, ctx.auth!.workspace.id, input.key),
  }));

export const createKnowledge = portalProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/chatbots/{key}/knowledge",
      summary: "Add a text, Q&A or website source, indexed in the background",
      description: "201 with the source `pending`; it moves to `processing`, then `ready` " +
        "(or `failed` with `error`). `text` needs `content`; `qa` needs `question` and " +
        "`answer`; `url` needs `source_url`, whose site is crawled.",
      created: true,
      requestExample: {
        type: "qa",
        question: "Do you ship to Iceland?",
        answer: "Yes, within five working days.",
      },
    },
    permission: "manage-content",
    maxBodyBytes: KNOWLEDGE_BODY_LIMIT,
  })
  .input(z.object({ key, ...newSourceFields }))
  .output(z.object({ data: sourceSchema }))
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

export const deleteKnowledge = portalProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/portal/chatbots/{key}/knowledge/{source}",
      summary: "Remove a knowledge source and its indexed chunks",
      responseExample: { message: "Knowledge source deleted." },
    },
    permission: "manage-content",
  })
  // int() already bounds it to safe integers; min(1) words the refusal of 0 correctly.
  .input(z.object({ key, source: z.coerce.number().int().min(1) }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    deleteSource(ctx.deps, ctx.auth!.workspace.id, input.key, input.source, {
      actor: actorOf(ctx.auth!, ctx.ip),
      now: ctx.now,
    })
  );

export const setKnowledgeSchedule = portalProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/portal/chatbots/{key}/knowledge/{source}/schedule",
      summary: "Keep a website source in sync: crawl it again off, daily or weekly",
      description: "Url sources only (422 otherwise). The next sync is due one interval " +
        "from now (`next_sync_at`); it runs once across instances, as Sync now does.",
      requestExample: { sync_schedule: "daily" },
    },
    permission: "manage-content",
  })
  .input(z.object({ key, source: z.coerce.number().int().min(1), ...syncScheduleFields }))
  .output(z.object({ data: sourceSchema }))
  .mutation(async ({ ctx, input }) => ({
    data: await setSourceSyncSchedule(
      ctx.deps,
      ctx.auth!.workspace.id,
      input.key,
      input.source,
      input.sync_schedule,
    ),
  }));

export const syncKnowledge = portalProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/chatbots/{key}/knowledge/{source}/sync",
      summary: "Sync a website source now; 409 while it is being indexed",
      description: "The site is crawled again in the background: pages are fetched " +
        "conditionally (ETag, Last-Modified), unchanged text is not re-embedded, new pages " +
        "are added and gone ones removed; `last_sync` then says what was found.",
    },
    permission: "manage-content",
    rateLimit: SYNC_NOW_RATE_LIMIT,
  })
  .input(z.object({ key, source: z.coerce.number().int().min(1) }))
  .output(z.object({ data: sourceSchema }))
  .mutation(async ({ ctx, input }) => ({
    data: await syncSourceNow(ctx.deps, ctx.auth!.workspace.id, input.key, input.source),
  }));
