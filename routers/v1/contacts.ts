/**
 * POST /api/v1/contacts/erase and POST /api/v1/contacts/export: a person's
 * data, named by e-mail address or verified user id, erased or exported for
 * a deletion or access request wired from the workspace's own systems
 * (docs/v1-api.md#contacts). POST, so an address never sits in a URL or a log.
 */
import { apiProcedure } from "../trpc.ts";
import { contactExport, erasureResult, personInput } from "../schemas/contact_data.ts";
import { personSelector } from "../../domain/contacts/contact_selector.ts";
import { eraseContact } from "../../domain/contacts/erase_contact.ts";
import { exportContact } from "../../domain/contacts/export_contact.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import { z } from "zod";

const namedBy = (input: { email?: string }) => input.email ? "email" : "user_id";

export const eraseContactProcedure = apiProcedure
  .meta({
    permission: "manage-workspace",
    openapi: {
      method: "POST",
      path: "/api/v1/contacts/erase",
      summary: "Erase everything the workspace holds about one person",
      description: "Give `email` or `user_id` (the verified `sub` of an identity token). " +
        "Every conversation carrying it, the visitors who held them and everything that names " +
        "them are deleted in one transaction; the `contact.erased` webhook names the erased " +
        "public ids. Nobody found is not an error: the counts are zero. Owners and " +
        "administrators only.",
    },
  })
  .input(personInput)
  .output(z.object({ data: erasureResult }))
  .mutation(async ({ ctx, input }) => ({
    data: await eraseContact(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      selector: personSelector(input),
      actor: actorOf(ctx.auth!, ctx.ip),
      namedBy: namedBy(input),
      notFound: "empty",
    }),
  }));

export const exportContactProcedure = apiProcedure
  .meta({
    permission: "manage-workspace",
    openapi: {
      method: "POST",
      path: "/api/v1/contacts/export",
      summary: "Export everything the workspace holds about one person, as JSON",
      description: "The same selection as erase, read without deleting: what an erasure " +
        "would delete. Nobody found gives empty lists. Owners and administrators only.",
    },
  })
  .input(personInput)
  .output(z.object({ data: contactExport }))
  .mutation(async ({ ctx, input }) => ({
    data: await exportContact(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      selector: personSelector(input),
      actor: actorOf(ctx.auth!, ctx.ip),
      namedBy: namedBy(input),
      notFound: "empty",
    }),
  }));
