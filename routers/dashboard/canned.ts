/** Shared canned replies in the dashboard's inbox settings: /api/dashboard/canned[/{canned}]. */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { listSharedCanned } from "../../db/canned_replies.ts";
import {
  createSharedCanned,
  updateSharedCannedReply,
} from "../../domain/canned/save_shared_canned.ts";
import { deleteSharedCanned } from "../../domain/canned/delete_shared_canned.ts";

const fields = z.object({
  title: z.string().trim().min(1).max(120),
  // Typed in the composer as "/word": stored with its slash, given with or without it.
  shortcut: z.string().trim().max(40).regex(/^\/?[^\s/]*$/, "The shortcut must be one word.")
    .nullable().default(null).transform((s) => s ? (s.startsWith("/") ? s : `/${s}`) : null)
    .transform((s) => s === "/" ? null : s),
  body: z.string().trim().min(1).max(4000),
});
const canned = z.object({
  id: z.int(),
  title: z.string(),
  shortcut: z.string().nullable(),
  body: z.string(),
  use_count: z.int(),
});
const cannedId = z.coerce.number().int().min(1);
const shape = (r: z.infer<typeof canned>) => ({
  id: Number(r.id),
  title: r.title,
  shortcut: r.shortcut,
  body: r.body,
  use_count: r.use_count,
});

export const listCanned = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/canned",
      summary: "The workspace's shared canned replies (every agent sees them)",
    },
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(canned) }))
  .query(async ({ ctx }) => ({
    data: (await listSharedCanned(ctx.deps.sql, ctx.auth!.workspace.id)).map(shape),
  }));

export const createCanned = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/canned",
      summary: "Add a shared canned reply",
      description: "201 with the reply; 422 when the title is already in use.",
      requestExample: { title: "Refund window", shortcut: "refund", body: "Refunds take 5 days." },
    },
    permission: "manage-workspace",
  })
  .input(fields)
  .output(z.object({ data: canned }))
  .mutation(async ({ ctx, input }) => {
    ctx.response.status = 201;
    return { data: shape(await createSharedCanned(ctx.deps.sql, ctx.auth!.workspace.id, input)) };
  });

export const updateCanned = dashboardProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/dashboard/canned/{canned}",
      summary: "Edit a shared canned reply (title, shortcut, body)",
    },
    permission: "manage-workspace",
  })
  .input(fields.extend({ canned: cannedId }))
  .output(z.object({ data: canned }))
  .mutation(async ({ ctx, input }) => {
    const { canned: id, ...rest } = input;
    return {
      data: shape(await updateSharedCannedReply(ctx.deps.sql, ctx.auth!.workspace.id, id, rest)),
    };
  });

export const deleteCanned = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/canned/{canned}",
      summary: "Delete a shared canned reply",
      responseExample: { message: "Canned reply deleted." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ canned: cannedId }))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx, input }) => {
    await deleteSharedCanned(ctx.deps.sql, ctx.auth!.workspace.id, input.canned);
    return { message: "Canned reply deleted." };
  });
