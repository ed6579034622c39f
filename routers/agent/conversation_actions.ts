/**
 * The actions an agent takes on a conversation: reply, takeover, release,
 * resolve, reopen, notes, assign, watch, block. Each needs the
 * `handle-conversations` permission and calls one domain action.
 */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { agentMessage } from "./schemas.ts";
import { timeZoneOf } from "./time_zone.ts";
import type { RequestContext } from "../context.ts";
import type { OperationMeta } from "../openapi/operation_meta.ts";
import { replyAsAgent } from "../../domain/conversations/reply_as_agent.ts";
import { takeOverConversation } from "../../domain/conversations/take_over_conversation.ts";
import { releaseConversation } from "../../domain/conversations/release_conversation.ts";
import { resolveConversation } from "../../domain/conversations/resolve_conversation.ts";
import { reopenConversation } from "../../domain/conversations/reopen_conversation.ts";
import { addNote } from "../../domain/conversations/add_note.ts";
import { assignConversation } from "../../domain/conversations/assign_conversation.ts";
import { watchConversation } from "../../domain/conversations/watch_conversation.ts";
import { blockVisitor } from "../../domain/conversations/block_visitor.ts";

const conversation = z.string().max(255);
const status = z.enum(["bot", "agent", "closed"]);
const notBlank = (field: string) =>
  chars(4000).refine((s) => s.trim().length > 0, `The ${field} field must not be whitespace only.`);

const actor = (ctx: RequestContext) => ({
  workspaceId: ctx.auth!.workspace.id,
  userId: ctx.auth!.user.id,
});

function action(path: string, summary: string, more: Partial<OperationMeta> = {}) {
  return agentProcedure.meta({
    openapi: {
      method: "POST",
      path: `/api/agent/conversations/{conversation}/${path}`,
      summary,
      ...more,
    },
    permission: "handle-conversations",
  });
}

const closedConflict: Partial<OperationMeta> = {
  description: "A closed conversation answers 409: reopen it first.",
  errors: [409],
};

export const reply = action("reply", "Reply to the visitor (takes the conversation over)")
  .input(z.object({
    conversation,
    body: notBlank("body"),
    client_id: z.string().min(1).max(64).optional(),
  }))
  .output(z.object({ message: agentMessage, duplicate: z.boolean() }))
  .mutation(({ ctx, input }) =>
    replyAsAgent(ctx.deps, actor(ctx), {
      conversationId: input.conversation,
      body: input.body,
      clientId: input.client_id,
      timeZone: timeZoneOf(ctx.req),
    })
  );

export const takeover = action(
  "takeover",
  "Take the conversation over from the AI",
  closedConflict,
)
  .input(z.object({ conversation }))
  .output(z.object({ status }))
  .mutation(({ ctx, input }) => takeOverConversation(ctx.deps, actor(ctx), input.conversation));

export const release = action("release", "Hand the conversation back to the AI", closedConflict)
  .input(z.object({ conversation }))
  .output(z.object({ status }))
  .mutation(({ ctx, input }) => releaseConversation(ctx.deps, actor(ctx), input.conversation));

export const resolve = action("resolve", "Resolve the conversation")
  .input(z.object({ conversation }))
  .output(z.object({ status, resolution: z.string().nullable() }))
  .mutation(({ ctx, input }) => resolveConversation(ctx.deps, actor(ctx), input.conversation));

export const reopen = action("reopen", "Reopen a closed conversation (back to the AI)")
  .input(z.object({ conversation }))
  .output(z.object({ status }))
  .mutation(({ ctx, input }) => reopenConversation(ctx.deps, actor(ctx), input.conversation));

export const note = action("notes", "Add a private note (never shown to the visitor)")
  .input(z.object({ conversation, body: notBlank("body") }))
  .output(z.object({
    note: z.object({ id: z.number().int(), body: z.string(), author: z.string(), at: z.string() }),
  }))
  .mutation(async ({ ctx, input }) => ({
    note: await addNote(ctx.deps, { ...actor(ctx), userName: ctx.auth!.user.name }, {
      conversationId: input.conversation,
      body: input.body,
      timeZone: timeZoneOf(ctx.req),
    }),
  }));

export const assign = action("assign", "Assign the conversation to an agent, or unassign (null)")
  .input(z.object({ conversation, user_id: z.number().int().min(1).nullable() }))
  .output(z.object({
    status,
    assigned_to: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  }))
  .mutation(({ ctx, input }) =>
    assignConversation(ctx.deps, actor(ctx), {
      conversationId: input.conversation,
      userId: input.user_id,
    })
  );

export const watch = action("watch", "Follow the conversation (or stop)")
  .input(z.object({ conversation, watching: z.boolean() }))
  .output(z.object({ watching: z.boolean() }))
  .mutation(({ ctx, input }) =>
    watchConversation(ctx.deps, actor(ctx), {
      conversationId: input.conversation,
      watching: input.watching,
    })
  );

export const block = action("block", "Block the conversation's visitor (or unblock)")
  .input(z.object({ conversation, blocked: z.boolean() }))
  .output(z.object({ blocked: z.boolean() }))
  .mutation(({ ctx, input }) =>
    blockVisitor(ctx.deps, actor(ctx), {
      conversationId: input.conversation,
      blocked: input.blocked,
    })
  );
