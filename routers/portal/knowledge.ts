/** GET/POST /api/portal/chatbots/{key}/knowledge and DELETE …/knowledge/{source}. */
import { z } from "zod";
import { KNOWLEDGE_BODY_LIMIT } from "../doors/request_body.ts";
import { chars } from "../schemas/text.ts";
import { portalProcedure } from "../trpc.ts";
import { listSources } from "../../domain/knowledge/list_sources.ts";
import { createPortalSource } from "../../domain/knowledge/create_portal_source.ts";
import { deleteSource } from "../../domain/knowledge/delete_source.ts";
import { Invalid } from "../../domain/errors.ts";

const sourceSchema = z.object({
  id: z.number(),
  type: z.string(),
  title: z.string(),
  source_url: z.string().nullable(),
  status: z.string(),
  chunk_count: z.number(),
  created_at: z.string(),
  error: z.string().nullable(),
  pages_found: z.number().nullable(),
  pages_indexed: z.number().nullable(),
});
const key = z.string().min(1).max(255);

export const listKnowledge = portalProcedure
  .meta({
    openapi: { method: "GET", path: "/api/portal/chatbots/{key}/knowledge", tags: ["portal"] },
  })
  .input(z.object({ key }))
  .output(z.object({ data: z.array(sourceSchema) }))
  .query(async ({ ctx, input }) => ({
    data: await listSources(ctx.deps.sql, ctx.auth!.workspace.id, input.key),
  }));

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.domain })
  .or(z.url({ protocol: /^https?$/ }));

export const createKnowledge = portalProcedure
  .meta({
    openapi: { method: "POST", path: "/api/portal/chatbots/{key}/knowledge", tags: ["portal"] },
    permission: "manage-content",
    maxBodyBytes: KNOWLEDGE_BODY_LIMIT,
  })
  .input(z.object({
    key,
    type: z.enum(["text", "qa", "url"]),
    title: chars(200).optional(),
    content: chars(1_000_000).optional(),
    question: chars(2000).optional(),
    answer: chars(50_000).optional(),
    source_url: z.string().max(2048).pipe(httpUrl).optional(),
  }))
  .output(z.object({ data: sourceSchema }))
  .mutation(async ({ ctx, input }) => {
    const required = (field: "content" | "question" | "answer" | "source_url") => {
      const value = input[field];
      if (value === undefined || value.trim() === "") {
        return {
          [field]: [`The ${field.replace("_", " ")} field is required when type is ${input.type}.`],
        };
      }
      return {};
    };
    const errors = input.type === "text"
      ? required("content")
      : input.type === "qa"
      ? { ...required("question"), ...required("answer") }
      : required("source_url");
    if (Object.keys(errors).length) {
      throw new Invalid(Object.values(errors)[0]![0]!, errors);
    }
    const wid = ctx.auth!.workspace.id;
    const data = input.type === "text"
      ? await createPortalSource(ctx.deps, wid, input.key, {
        type: "text",
        title: input.title,
        content: input.content!,
      })
      : input.type === "qa"
      ? await createPortalSource(ctx.deps, wid, input.key, {
        type: "qa",
        title: input.title,
        question: input.question!,
        answer: input.answer!,
      })
      : await createPortalSource(ctx.deps, wid, input.key, {
        type: "url",
        title: input.title,
        source_url: input.source_url!,
      });
    ctx.response.status = 201;
    return { data };
  });

export const deleteKnowledge = portalProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/portal/chatbots/{key}/knowledge/{source}",
      tags: ["portal"],
    },
    permission: "manage-content",
  })
  // int() already bounds it to safe integers; min(1) words the refusal of 0 correctly.
  .input(z.object({ key, source: z.coerce.number().int().min(1) }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    deleteSource(ctx.deps, ctx.auth!.workspace.id, input.key, input.source)
  );
