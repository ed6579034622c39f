/** The tag catalogue in the dashboard's inbox settings: GET/POST /api/dashboard/tags, PATCH/DELETE …/{tag}. */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { listTagsWithUse } from "../../db/tags.ts";
import { createTag } from "../../domain/tags/create_tag.ts";
import { updateTag } from "../../domain/tags/update_tag.ts";
import { deleteTag } from "../../domain/tags/delete_tag.ts";

const name = z.string().trim().min(1).max(50);
const color = z.string().regex(
  /^#[0-9a-fA-F]{6}$/,
  "The color must be a hex colour such as #f59e0b.",
);
const tagId = z.coerce.number().int().min(1);
const tag = z.object({ id: z.int(), name: z.string(), color: z.string() });

export const listTags = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/tags",
      summary: "The workspace's tags, with how many conversations carry each",
    },
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(tag.extend({ conversations: z.int() })) }))
  .query(async ({ ctx }) => ({
    data: await listTagsWithUse(ctx.deps.sql, ctx.auth!.workspace.id),
  }));

export const createTagProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/tags",
      summary: "Add a tag to the catalogue agents attach from",
      description: "201 with the tag; 422 when the name is already in use.",
      requestExample: { name: "Billing", color: "#f59e0b" },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ name, color: color.default("#6b7280") }))
  .output(z.object({ data: tag }))
  .mutation(async ({ ctx, input }) => {
    ctx.response.status = 201;
    return { data: await createTag(ctx.deps.sql, ctx.auth!.workspace.id, input) };
  });

export const updateTagProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/dashboard/tags/{tag}",
      summary: "Rename or recolour a tag; conversations carrying it show the change at once",
    },
    permission: "manage-workspace",
  })
  .input(z.object({ tag: tagId, name: name.optional(), color: color.optional() }))
  .output(z.object({ data: tag }))
  .mutation(async ({ ctx, input }) => ({
    data: await updateTag(ctx.deps.sql, ctx.auth!.workspace.id, {
      id: input.tag,
      name: input.name,
      color: input.color,
    }),
  }));

export const deleteTagProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/tags/{tag}",
      summary: "Delete a tag; every conversation carrying it loses it",
      responseExample: { message: "Tag deleted." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ tag: tagId }))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx, input }) => {
    await deleteTag(ctx.deps.sql, ctx.auth!.workspace.id, input.tag);
    return { message: "Tag deleted." };
  });
