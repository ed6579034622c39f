/** POST /api/v1/chatbots/{key}/messages: a visitor message in, the full AI reply out. */
import { z } from "zod";
import { apiProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { getChatbotForReply } from "../../domain/chatbots/get_chatbot.ts";
import { answerVisitorMessage } from "../../domain/conversations/answer_visitor_message.ts";

const META_MAX_BYTES = 16_384;

export const sendMessage = apiProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/v1/chatbots/{key}/messages",
      summary: "Send a visitor message and get the AI reply (bound by the monthly quota)",
      description: "Without `conversation_id` a new conversation starts; with it the message " +
        "continues that conversation. While a human owns the conversation `reply` is null and " +
        "`note` says why. 429 when the workspace's monthly message limit is reached. 502 when " +
        "the AI provider fails: `message` names the cause and `conversation_id` the " +
        "conversation that kept the visitor message, so a retry can continue it.",
      errors: [429, 502],
      responseExample: {
        conversation_id: "0b6f5c1e-3d2a-4e8f-9a7b-1c2d3e4f5a6b",
        status: "bot",
        reply: {
          id: 42,
          content: "Yes, we ship to Iceland within five working days.",
          model: "gpt-4o-mini",
          tokens_in: 412,
          tokens_out: 17,
        },
      },
      requestExample: {
        message: "Do you ship to Iceland?",
        visitor_id: "crm-contact-1842",
        meta: { plan: "pro" },
      },
    },
    permission: "handle-conversations",
  })
  .input(z.object({
    key: z.string().max(255),
    message: chars(4000).refine(
      (s) => s.trim().length > 0,
      "The message field must not be empty or only whitespace.",
    ),
    visitor_id: chars(100).refine(
      (s) => s.trim().length > 0,
      "The visitor id field is required.",
    ),
    conversation_id: z.uuid().optional(),
    meta: z.record(z.string(), z.unknown()).refine(
      (m) => new TextEncoder().encode(JSON.stringify(m)).length <= META_MAX_BYTES,
      `The meta field must not be larger than ${META_MAX_BYTES / 1024} KB.`,
    ).optional(),
  }))
  .output(z.object({
    conversation_id: z.string(),
    status: z.enum(["bot", "agent", "closed"]),
    reply: z.object({
      id: z.int(),
      content: z.string(),
      model: z.string(),
      tokens_in: z.int(),
      tokens_out: z.int(),
    }).nullable(),
    note: z.string().optional(),
  }))
  .mutation(async ({ ctx, input }) => {
    const workspaceId = ctx.auth!.workspace.id;
    const { bot, providerCiphertext, quotaHeadroom, knowledgeGeneration } =
      await getChatbotForReply(
        ctx.deps.sql,
        workspaceId,
        input.key,
        ctx.now,
      );
    const out = await answerVisitorMessage(ctx.deps, {
      workspaceId,
      bot,
      providerCiphertext,
      quotaHeadroom,
      knowledgeGeneration,
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
      content: input.message,
      meta: input.meta,
    });
    const base = { conversation_id: out.conversation.public_id, status: out.conversation.status };
    if (!out.reply) return { ...base, reply: null, note: out.note ?? undefined };
    return {
      ...base,
      reply: {
        id: out.reply.message.id,
        content: out.reply.message.content,
        model: out.reply.model,
        tokens_in: out.reply.tokensIn,
        tokens_out: out.reply.tokensOut,
      },
    };
  });
