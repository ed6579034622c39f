/** GET/POST /api/portal/chatbots/{key}/knowledge and DELETE …/knowledge/{source}. */
import { z } from "zod";
import { KNOWLEDGE_BODY_LIMIT } from "../doors/request_body.ts";
import { newSourceFields, newSourceInput, sourceSchema } from "../schemas/knowledge_source.ts";
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
