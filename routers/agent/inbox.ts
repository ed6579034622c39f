/** GET /api/agent/inbox and GET /api/agent/conversations/{conversation}. */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { inboxView } from "./schemas.ts";
import { listInbox } from "../../domain/inbox/list_inbox.ts";
import type { InboxFilter } from "../../db/inbox.ts";
import { timeZoneOf } from "./time_zone.ts";
import type { RequestContext } from "../context.ts";

const filter = z.enum(["all", "waiting", "mine", "team", "ai", "human", "resolved"]);

/** Both routes answer the same inbox; they differ in where the open conversation is named. */
const answerInbox = (
  { ctx, input }: { ctx: RequestContext; input: { filter: InboxFilter; conversation?: string } },
) =>
  listInbox(ctx.deps, {
    workspaceId: ctx.auth!.workspace.id,
    userId: ctx.auth!.user.id,
    filter: input.filter,
    conversationId: input.conversation,
    timeZone: timeZoneOf(ctx.req),
  });

export const inbox = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/inbox",
      summary:
        "The inbox: one section's rows (at most 60), every section's count, an open conversation",
    },
  })
  .input(z.object({
    filter: filter.default("all"),
    conversation: z.string().max(64).optional(),
  }))
  .output(inboxView)
  .query(answerInbox);

export const conversation = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/conversations/{conversation}",
      summary: "The inbox with this conversation open in `active` (null when not found)",
      description: "An unknown or foreign id is not an error: 200 with `active: null`.",
      notFound: false,
    },
  })
  .input(z.object({ conversation: z.string().max(255), filter: filter.default("all") }))
  .output(inboxView)
  .query(answerInbox);
