/** POST /api/v1/chatbots/{key}/knowledge: add a text or Q&A source, trained in the request. */
import { z } from "zod";
import { KNOWLEDGE_BODY_LIMIT } from "../doors/request_body.ts";
import { apiProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { getChatbot } from "../../domain/chatbots/get_chatbot.ts";
import { addTrainedSource } from "../../domain/knowledge/add_trained_source.ts";

/** Required and not only whitespace, with the field's own sentence. */
const required = (field: string, max: number) =>
  chars(max).refine((s) => s.trim().length > 0, `The ${field} field is required.`);

const QA_ANSWER_MAX = 50_000;

export const addKnowledge = apiProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/v1/chatbots/{key}/knowledge",
      summary: "Add a text document or a question and answer, trained before the response",
      description: "201 with the trained source. The same title and content again retrains " +
        "that record (200) instead of adding a second one. For `qa` the title is the question " +
        "and the content the answer.\n\nWhen training fails the document is kept: 422 with " +
        'its `id` and `status: "failed"` beside `message` and `errors`; send the same title ' +
        "and content again to retry. A provider without an embeddings API is not a failure: " +
        "the source is indexed for full-text search.",
      created: "if-new",
      requestExample: {
        title: "Shipping times",
        content: "Orders ship within two working days. Express delivery takes one day.",
        type: "text",
      },
    },
    permission: "manage-content",
    maxBodyBytes: KNOWLEDGE_BODY_LIMIT,
  })
  .input(
    z.object({
      key: z.string().max(255),
      title: required("title", 200),
      content: required("content", 1_000_000),
      type: z.enum(["text", "qa"]).default("text"),
    }).refine((b) => b.type !== "qa" || b.content.length <= QA_ANSWER_MAX, {
      // For qa the content is the answer: the spec's answer limit applies.
      path: ["content"],
      message: `The content field must not be greater than ${QA_ANSWER_MAX} characters for a qa.`,
    }),
  )
  .output(z.object({
    data: z.object({
      id: z.int(),
      title: z.string(),
      type: z.string().meta({ examples: ["text"] }),
      status: z.string().meta({ examples: ["ready"] }),
      chunk_count: z.int(),
    }),
  }))
  .mutation(async ({ ctx, input }) => {
    const workspaceId = ctx.auth!.workspace.id;
    const bot = await getChatbot(ctx.deps.sql, workspaceId, input.key);
    const { source, created } = await addTrainedSource(ctx.deps, {
      workspaceId,
      bot,
      type: input.type,
      title: input.title.trim(),
      content: input.content,
    });
    ctx.response.status = created ? 201 : 200;
    return {
      data: {
        id: source.id,
        title: source.title,
        type: source.type,
        status: source.status,
        chunk_count: source.chunk_count,
      },
    };
  });
