/**
 * The conversation history: GET /api/dashboard/conversations (filtered,
 * searched, keyset-paged) and GET /api/dashboard/conversations/{conversation}
 * (the read-only transcript). The CSV export is a raw route beside it
 * (history_export.ts), on the same filter.
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { historyFilterShape } from "../schemas/history_filter.ts";
import { listHistory } from "../../domain/history/list_history.ts";
import { showHistoryConversation } from "../../domain/history/show_history_conversation.ts";

const tag = z.object({ id: z.int(), name: z.string(), color: z.string() });
const status = z.enum(["bot", "agent", "closed"]);
const assignee = z.object({ id: z.int(), name: z.string().nullable() }).nullable();
const bot = z.object({ key: z.string(), name: z.string() });

const item = z.object({
  id: z.string(),
  bot,
  status,
  handoff_state: z.string(),
  resolution: z.string().nullable(),
  visitor: z.object({ id: z.string(), name: z.string().nullable(), email: z.string().nullable() }),
  assigned_to: assignee,
  tags: z.array(tag),
  rating: z.int().nullable(),
  messages: z.int(),
  preview: z.string().nullable(),
  started_at: z.string(),
  last_message_at: z.string(),
  resolved_at: z.string().nullable(),
});

export const listConversations = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/conversations",
      summary: "The workspace's conversations, newest started first, filtered and searched",
      description: "Keyset-paged: pass `next_cursor` back as `cursor` for the next page " +
        "(null on the last). A bot, tag or agent that is not this workspace's is 422 on its " +
        "field, like one that does not exist.",
    },
  })
  .input(z.object({
    ...historyFilterShape,
    cursor: z.string().max(200).optional(),
    per_page: z.string().regex(/^\d{1,3}$/).optional().meta({
      description: "Rows per page, 1 to 100 (default 25).",
    }),
  }))
  .output(z.object({ data: z.array(item), next_cursor: z.string().nullable(), per_page: z.int() }))
  .query(async ({ ctx, input }) => {
    const perPage = Math.min(100, Math.max(1, Number(input.per_page ?? 25)));
    return await listHistory(ctx.deps.sql, ctx.auth!.workspace.id, { ...input, per_page: perPage });
  });

export const showConversation = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/conversations/{conversation}",
      summary: "One conversation's transcript, read-only, with its notes and events",
      description: "Messages are the newest `messages_shown_limit` of `messages_total`.",
    },
  })
  .input(z.object({ conversation: z.string().max(64) }))
  .output(z.object({
    data: z.object({
      id: z.string(),
      bot,
      status,
      handoff_state: z.string(),
      resolution: z.string().nullable(),
      visitor: z.object({
        id: z.string(),
        name: z.string().nullable(),
        email: z.string().nullable(),
        phone: z.string().nullable(),
      }),
      assigned_to: assignee,
      tags: z.array(tag),
      rating: z.int().nullable(),
      rating_comment: z.string().nullable(),
      summary: z.string().nullable(),
      started_at: z.string(),
      last_message_at: z.string(),
      resolved_at: z.string().nullable(),
      messages_total: z.int(),
      messages_shown_limit: z.int(),
      messages: z.array(z.object({
        id: z.int(),
        role: z.enum(["visitor", "assistant", "agent"]),
        content: z.string(),
        at: z.string(),
      })),
      notes: z.array(z.object({
        id: z.int(),
        body: z.string(),
        author: z.string().nullable(),
        at: z.string(),
      })),
      events: z.array(z.object({
        type: z.string(),
        source: z.string(),
        actor: z.string().nullable(),
        at: z.string(),
      })),
    }),
  }))
  .query(async ({ ctx, input }) => ({
    data: await showHistoryConversation(ctx.deps.sql, ctx.auth!.workspace.id, input.conversation),
  }));
