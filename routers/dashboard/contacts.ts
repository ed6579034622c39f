/**
 * The dashboard's Contacts screen (docs/dashboard.md#contacts): visitors who
 * left an identity, searched and keyset-paged; one contact's detail; its
 * export (JSON of everything erasure would delete) and its erasure, and the
 * erasure of one conversation. Reading needs the dashboard; export and
 * erasure are for owners and administrators (`manage-workspace`).
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { contactExport, erasureResult } from "../schemas/contact_data.ts";
import { listContacts } from "../../domain/contacts/list_contacts.ts";
import { showContact } from "../../domain/contacts/show_contact.ts";
import { eraseContact } from "../../domain/contacts/erase_contact.ts";
import { exportContact } from "../../domain/contacts/export_contact.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import { NotFound } from "../../domain/errors.ts";
import { contactOfConversation } from "../../db/contacts.ts";

const contactId = z.string().max(20).meta({ description: "The contact's id (from the list)." });

/** A path id that is not a number names no contact: 404, like one of another workspace. */
function idOf(raw: string): number {
  if (!/^\d{1,18}$/.test(raw)) throw new NotFound("Contact not found.");
  return Number(raw);
}

const item = z.object({
  id: z.int(),
  bot: z.object({ key: z.string(), name: z.string() }),
  visitor_id: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  user_id: z.string().nullable().meta({ description: "The verified user id, when one was given." }),
  conversations: z.int(),
  rating: z.number().nullable().meta({ description: "Average rating of their conversations." }),
  first_seen_at: z.string().nullable(),
  last_seen_at: z.string().nullable(),
  country: z.string().nullable(),
  device: z.string().nullable().meta({ description: "The browser's user agent, as stored." }),
  page_url: z.string().nullable(),
});

export const listContactsProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/contacts",
      summary: "Visitors who left a name, an e-mail address or a verified user id",
      description: "Newest first, keyset-paged: pass `next_cursor` back as `cursor` (null on " +
        "the last page). `q` searches part of a name or an e-mail address.",
    },
  })
  .input(z.object({
    q: z.string().max(200).optional(),
    cursor: z.string().max(40).optional(),
    per_page: z.string().regex(/^\d{1,3}$/).optional().meta({
      description: "Rows per page, 1 to 100 (default 25).",
    }),
  }))
  .output(z.object({ data: z.array(item), next_cursor: z.string().nullable() }))
  .query(async ({ ctx, input }) =>
    await listContacts(ctx.deps.sql, ctx.auth!.workspace.id, {
      q: input.q,
      cursor: input.cursor,
      perPage: Math.min(100, Math.max(1, Number(input.per_page ?? 25))),
    })
  );

export const showContactProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/contacts/{contact}",
      summary: "One contact: conversations, ratings, leads, pages, device and location",
    },
  })
  .input(z.object({ contact: contactId }))
  .output(z.object({
    data: item.extend({
      leads: z.array(z.string()),
      conversation_list: z.array(z.object({
        id: z.string(),
        status: z.string(),
        rating: z.int().nullable(),
        rating_comment: z.string().nullable(),
        messages: z.int(),
        started_at: z.string(),
        last_message_at: z.string(),
      })),
      visit: z.object({
        page_url: z.string().nullable(),
        page_title: z.string().nullable(),
        entry_page: z.string().nullable(),
        referrer: z.string().nullable(),
        journey: z.unknown(),
        device: z.string().nullable(),
        locale: z.string().nullable(),
        timezone: z.string().nullable(),
        country: z.string().nullable(),
        page_views: z.int(),
        first_seen_at: z.string(),
        last_seen_at: z.string(),
      }).nullable(),
    }),
  }))
  .query(async ({ ctx, input }) => ({
    data: await showContact(ctx.deps.sql, ctx.auth!.workspace.id, idOf(input.contact)),
  }));

export const exportContactProcedure = dashboardProcedure
  .meta({
    permission: "manage-workspace",
    openapi: {
      method: "GET",
      path: "/api/dashboard/contacts/{contact}/export",
      summary: "Everything held about the contact, as JSON (the right of access)",
      description: "What erasing the contact would delete: the conversations of the contact's " +
        "visitor and those carrying its e-mail addresses or verified user id, with all that " +
        "names them. Recorded in the audit log.",
    },
  })
  .input(z.object({ contact: contactId }))
  .output(z.object({ data: contactExport }))
  .query(async ({ ctx, input }) => ({
    data: await exportContact(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      selector: { contactIds: [idOf(input.contact)] },
      actor: actorOf(ctx.auth!, ctx.ip),
      namedBy: "contact",
      notFound: "404",
    }),
  }));

export const eraseContactProcedure = dashboardProcedure
  .meta({
    permission: "manage-workspace",
    openapi: {
      method: "POST",
      path: "/api/dashboard/contacts/{contact}/erase",
      summary: "Erase the contact and everything that names it",
      description: "One transaction: what the export holds is deleted, the audit log records " +
        "who and how many rows, and the `contact.erased` webhook names the public ids.",
    },
  })
  .input(z.object({ contact: contactId }))
  .output(z.object({ data: erasureResult }))
  .mutation(async ({ ctx, input }) => ({
    data: await eraseContact(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      selector: { contactIds: [idOf(input.contact)] },
      actor: actorOf(ctx.auth!, ctx.ip),
      namedBy: "contact",
      notFound: "404",
    }),
  }));

export const eraseConversationProcedure = dashboardProcedure
  .meta({
    permission: "manage-workspace",
    openapi: {
      method: "POST",
      path: "/api/dashboard/conversations/{conversation}/erase",
      summary: "Erase one conversation and everything that names it",
      description: "Its messages, notes, tags, rating, screen shares, queued alerts and " +
        "webhook events; its visitor too when no other conversation of the visitor remains.",
    },
  })
  .input(z.object({ conversation: z.string().max(64) }))
  .output(z.object({ data: erasureResult }))
  .mutation(async ({ ctx, input }) => ({
    data: await eraseContact(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      selector: { conversationIds: [input.conversation], exact: true },
      actor: actorOf(ctx.auth!, ctx.ip),
      namedBy: "conversation",
      notFound: "404",
    }),
  }));

export const conversationContactProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/conversations/{conversation}/contact",
      summary: "The contact of a conversation's visitor (the inbox's visitor panel links here)",
      description: "404 when the visitor left no name, e-mail address or verified user id.",
    },
  })
  .input(z.object({ conversation: z.string().max(64) }))
  .output(z.object({ data: z.object({ id: z.int() }) }))
  .query(async ({ ctx, input }) => {
    const id = await contactOfConversation(
      ctx.deps.sql,
      ctx.auth!.workspace.id,
      input.conversation,
    );
    if (id === null) throw new NotFound("This conversation's visitor is not a contact.");
    return { data: { id } };
  });
