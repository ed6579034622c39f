/** GET /api/v1/chatbots/{key}/conversations and GET /api/v1/conversations/{conversation}. */
import { z } from "zod";
import { apiProcedure } from "../trpc.ts";
import { getChatbot } from "../../domain/chatbots/get_chatbot.ts";
import { pageConversations } from "../../domain/conversations/page_bot_conversations.ts";
import { getConversationThread } from "../../domain/conversations/get_conversation_thread.ts";
import { isoMicros } from "./timestamps.ts";

const status = z.enum(["bot", "agent", "closed"]);
const page = z.coerce.number().int().optional().meta({
  minimum: 1,
  default: 1,
  description: "The page to return (below 1 reads as 1).",
});
const perPage = z.coerce.number().int().optional().meta({
  minimum: 1,
  maximum: 100,
  default: 20,
  description: "Conversations per page: default 20, capped at 100.",
});

export const listConversations = apiProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/v1/chatbots/{key}/conversations",
      summary: "A bot's conversations, most recent activity first (paginated)",
      description: "A length-aware page: `data` plus `total`, `last_page` and the URLs of the " +
        "first, previous, next and last pages (null at the ends).",
    },
  })
  .input(z.object({ key: z.string().max(255), page, per_page: perPage }))
  .output(z.object({
    current_page: z.int(),
    data: z.array(z.object({
      id: z.int(),
      public_id: z.string(),
      status,
      visitor_id: z.string(),
      last_message_at: z.string(),
    })),
    first_page_url: z.string(),
    from: z.int().nullable(),
    last_page: z.int(),
    last_page_url: z.string(),
    next_page_url: z.string().nullable(),
    path: z.string(),
    per_page: z.int(),
    prev_page_url: z.string().nullable(),
    to: z.int().nullable(),
    total: z.int(),
  }))
  .query(async ({ ctx, input }) => {
    const workspaceId = ctx.auth!.workspace.id;
    const bot = await getChatbot(ctx.deps.sql, workspaceId, input.key);
    const page = await pageConversations(ctx.deps.sql, {
      workspaceId,
      chatbotId: bot.id,
      path: `${ctx.deps.config.baseUrl}/api/v1/chatbots/${encodeURIComponent(bot.public_key)}` +
        "/conversations",
      page: input.page,
      perPage: input.per_page,
    });
    return {
      ...page,
      data: page.data.map((c) => ({
        id: c.id,
        public_id: c.public_id,
        status: c.status,
        visitor_id: c.visitor_id,
        last_message_at: isoMicros(c.last_message_at),
      })),
    };
  });

export const showConversation = apiProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/v1/conversations/{conversation}",
      summary: "One conversation with its messages",
      description:
        "An id that is not a conversation of this workspace (malformed included) is 404.",
    },
  })
  // Any text: a malformed or over-long id is an unknown conversation (404), never a 422.
  .input(z.object({ conversation: z.string() }))
  .output(z.object({
    data: z.object({
      id: z.string(),
      status,
      visitor_id: z.string(),
      messages: z.array(z.object({
        id: z.int(),
        role: z.enum(["visitor", "assistant", "agent"]),
        content: z.string(),
        created_at: z.string(),
      })),
    }),
  }))
  .query(async ({ ctx, input }) => {
    const { conversation, messages } = await getConversationThread(
      ctx.deps.sql,
      ctx.auth!.workspace.id,
      input.conversation,
    );
    return {
      data: {
        id: conversation.public_id,
        status: conversation.status,
        visitor_id: conversation.visitor_id,
        messages: messages.map((m) => ({
          id: m.id,
          role: m.role,
          content: m.content,
          created_at: isoMicros(m.created_at),
        })),
      },
    };
  });
