/**
 * The dashboard's contact list (docs/dashboard.md#contacts): visitors who
 * left a name, an e-mail address or a verified user id, newest first,
 * searched by part of a name or address, keyset-paged (`next_cursor`).
 */
import type { Executor } from "../../db/client.ts";
import { type ContactListRow, pageContacts } from "../../db/contacts.ts";
import { Invalid } from "../errors.ts";

export interface ContactListItem {
  id: number;
  bot: { key: string; name: string };
  visitor_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  user_id: string | null;
  conversations: number;
  rating: number | null;
  first_seen_at: string | null;
  last_seen_at: string | null;
  country: string | null;
  device: string | null;
  page_url: string | null;
}

export function contactItem(r: ContactListRow): ContactListItem {
  return {
    id: Number(r.id),
    bot: { key: r.bot_key, name: r.bot_name },
    visitor_id: r.visitor_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    user_id: r.user_id,
    conversations: r.conversations,
    rating: r.rating === null ? null : Number(r.rating),
    first_seen_at: r.first_seen_at?.toISOString() ?? null,
    last_seen_at: r.last_seen_at?.toISOString() ?? null,
    country: r.country,
    device: r.user_agent,
    page_url: r.page_url,
  };
}

export async function listContacts(
  sql: Executor,
  workspaceId: number,
  input: { q?: string; cursor?: string; perPage: number },
): Promise<{ data: ContactListItem[]; next_cursor: string | null }> {
  let before: number | undefined;
  if (input.cursor) {
    if (!/^\d{1,18}$/.test(input.cursor)) throw Invalid.field("cursor", "The cursor is not valid.");
    before = Number(input.cursor);
  }
  const rows = await pageContacts(sql, workspaceId, {
    q: input.q,
    before,
    limit: input.perPage + 1,
  });
  const page = rows.slice(0, input.perPage).map(contactItem);
  const more = rows.length > input.perPage;
  return { data: page, next_cursor: more ? String(page[page.length - 1]!.id) : null };
}
