/** GET /api/agent/visitors and POST /api/agent/visitors/{visitor}/invite (docs/agent-api.md). */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { listLive } from "../../domain/live_visitors/list_live_visitors.ts";
import { inviteVisitor } from "../../domain/live_visitors/invite_visitor.ts";
import { timeOfDay } from "../../domain/display_time.ts";
import { timeZoneOf } from "./time_zone.ts";

const liveVisitor = z.object({
  id: z.string(),
  chatbot: z.object({ public_key: z.string(), name: z.string() }),
  page: z.string().nullable(),
  page_title: z.string().nullable(),
  page_views: z.int(),
  time_on_site_seconds: z.int(),
  device: z.string().nullable(),
  browser: z.string().nullable(),
  os: z.string().nullable(),
  country: z.string().nullable(),
  chat_open: z.boolean(),
  has_conversation: z.boolean(),
  conversation_id: z.string().nullable(),
  last_seen_seconds: z.int(),
});

export const visitors = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/visitors",
      summary: "Everyone browsing the workspace's sites now, chat opened or not",
      description:
        "Visitors whose widget sent a heartbeat in the last `timeout_seconds` (45), most recent first; refresh every `poll_seconds`.",
    },
  })
  .input(z.object({
    limit: z.coerce.number().int().optional().meta({
      minimum: 1,
      maximum: 200,
      default: 100,
      description: "Clamped to 1..200.",
    }),
  }))
  .output(z.object({
    enabled: z.boolean(),
    poll_seconds: z.int(),
    timeout_seconds: z.int(),
    visitors: z.array(liveVisitor),
  }))
  .query(({ ctx, input }) =>
    listLive(ctx.deps.sql, {
      workspaceId: ctx.auth!.workspace.id,
      limit: input.limit,
      now: ctx.now,
    })
  );

export const invite = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/visitors/{visitor}/invite",
      summary: "Start a human-managed chat with a visitor who is browsing now",
      description:
        "201 with a new human-owned conversation, 200 when the visitor's open conversation is used. 404: empty id after truncation to 100 characters, or a visitor never seen here; 409: the visitor has left; 422: no active bot; 500: nothing saved, retry is safe.",
      created: "if-new",
      errors: [409],
      requestExample: { message: "Hi! Can I help you with pricing?" },
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-invite", limit: 30, windowSeconds: 60, by: "user" },
  })
  .input(z.object({
    // Truncated to 100 characters by the action, not refused (SPEC).
    visitor: z.string().max(2048),
    message: chars(2000),
    chatbot_id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  }))
  .output(z.object({
    conversation_id: z.string(),
    created: z.boolean(),
    delivery_within_seconds: z.int(),
    message: z.object({
      id: z.int(),
      role: z.enum(["visitor", "assistant", "agent"]),
      content: z.string(),
      at: z.string(),
    }),
  }))
  .mutation(async ({ ctx, input }) => {
    const r = await inviteVisitor(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      userId: ctx.auth!.user.id,
      visitorId: input.visitor,
      message: input.message,
      chatbotId: input.chatbot_id,
    });
    ctx.response.status = r.created ? 201 : 200;
    return {
      conversation_id: r.conversationId,
      created: r.created,
      delivery_within_seconds: r.deliveryWithinSeconds,
      message: {
        id: r.message.id,
        role: r.message.role,
        content: r.message.content,
        at: timeOfDay(r.message.created_at, timeZoneOf(ctx.req)),
      },
    };
  });
