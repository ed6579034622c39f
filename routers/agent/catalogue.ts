/**
 * The workspace's catalogues as an agent uses them: tags (list, attach to and
 * detach from a conversation) and canned replies (list, count a use).
 */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { tag } from "./schemas.ts";
import { listTags } from "../../domain/tags/list_tags.ts";
import { tagConversation } from "../../domain/conversations/tag_conversation.ts";
import { listCanned } from "../../domain/canned/list_canned.ts";
import { markCannedUsed } from "../../domain/canned/mark_canned_used.ts";

const id = z.coerce.number().int().min(1);

export const tags = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/tags",
      summary: "The workspace's tag catalogue",
    },
  })
  .input(z.object({}))
  .output(z.object({ tags: z.array(tag) }))
  .query(({ ctx }) => listTags(ctx.deps.sql, ctx.auth!.workspace.id));

export const attachTag = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/conversations/{conversation}/tags",
      summary: "Attach a tag of the workspace catalogue",
    },
    permission: "handle-conversations",
  })
  .input(z.object({ conversation: z.string().max(255), tag_id: z.number().int().min(1) }))
  .output(z.object({ attached: z.number().int() }))
  .mutation(async ({ ctx, input }) => {
    await tagConversation(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      userId: ctx.auth!.user.id,
    }, { conversationId: input.conversation, tagId: input.tag_id, attach: true });
    return { attached: input.tag_id };
  });

export const detachTag = agentProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/agent/conversations/{conversation}/tags/{tag}",
      summary: "Detach a tag",
    },
    permission: "handle-conversations",
  })
  .input(z.object({ conversation: z.string().max(255), tag: id }))
  .output(z.object({ detached: z.number().int() }))
  .mutation(async ({ ctx, input }) => {
    await tagConversation(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      userId: ctx.auth!.user.id,
    }, { conversationId: input.conversation, tagId: input.tag, attach: false });
    return { detached: input.tag };
  });

export const canned = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/canned",
      summary: "Canned replies: the shared ones and the agent's own, most used first",
    },
  })
  .input(z.object({}))
  .output(z.object({
    canned: z.array(z.object({
      id: z.number().int(),
      title: z.string(),
      shortcut: z.string().nullable(),
      body: z.string(),
      shared: z.boolean(),
    })),
  }))
  .query(({ ctx }) =>
    listCanned(ctx.deps.sql, { workspaceId: ctx.auth!.workspace.id, userId: ctx.auth!.user.id })
  );

export const cannedUsed = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/canned/{canned}/used",
      summary: "Count a use of a canned reply (ranking)",
    },
    permission: "handle-conversations",
  })
  .input(z.object({ canned: id }))
  .output(z.object({ ok: z.boolean() }))
  .mutation(({ ctx, input }) =>
    markCannedUsed(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      userId: ctx.auth!.user.id,
    }, input.canned)
  );
