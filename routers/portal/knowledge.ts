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
  id: z.int(),
  type: z.string().meta({ examples: ["url"] }),
  title: z.string(),
  source_url: z.string().nullable(),
  status: z.string().meta({ examples: ["ready"] }),
  chunk_count: z.int(),
  created_at: z.string(),
  error: z.string().nullable(),
  pages_found: z.int().nullable(),
  pages_indexed: z.int().nullable(),
});
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

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.domain })
  .or(z.url({ protocol: /^https?$/ }));

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
      summary: "Remove a knowledge source and its indexed chunks",
      responseExample: { message: "Knowledge source deleted." },
    },
    permission: "manage-content",
  })
  // int() already bounds it to safe integers; min(1) words the refusal of 0 correctly.
  .input(z.object({ key, source: z.coerce.number().int().min(1) }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    deleteSource(ctx.deps, ctx.auth!.workspace.id, input.key, input.source)
  );
