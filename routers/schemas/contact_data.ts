/** The shapes of an erasure's result and of a contact export, shared by v1 and the dashboard. */
import { z } from "zod";

const rows = z.array(z.record(z.string(), z.unknown()));

export const erasureResult = z.object({
  erasure_id: z.string().meta({
    description: "Names this erasure in the audit log and in the `contact.erased` webhook.",
  }),
  conversations: z.array(z.string()).meta({
    description: "Public ids of the erased conversations.",
  }),
  counts: z.record(z.string(), z.int()).meta({ description: "Rows deleted, per kind." }),
});

export const contactExport = z.object({
  format: z.literal("parley.contact_export"),
  version: z.literal(1),
  exported_at: z.string(),
  conversations: rows.meta({
    description: "Each conversation with its messages, notes, tags, events, screen shares, " +
      "AI assist calls, product recommendations and SLA breaches.",
  }),
  visitors: rows,
  contacts: rows,
  blocked_visitors: rows,
  notification_email_items: rows,
  queued_jobs: rows,
  webhook_events: rows,
});

export const personInput = z.object({
  email: z.string().max(255).optional().meta({ description: "An e-mail address the person gave." }),
  user_id: z.string().max(255).optional().meta({
    description: "The verified user id: the `sub` of the identity token your site signed.",
  }),
});
