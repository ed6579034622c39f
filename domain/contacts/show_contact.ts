/**
 * One contact as the dashboard shows it: who (the list's fields), their
 * conversations with ratings, the e-mail addresses they left (leads), and
 * what the widget stored about their visits (pages, journey, device, locale,
 * country as a trusted proxy reported it).
 */
import type { Executor } from "../../db/client.ts";
import { contactConversations, contactVisit, pageContacts } from "../../db/contacts.ts";
import { NotFound } from "../errors.ts";
import { contactItem, type ContactListItem } from "./list_contacts.ts";

export interface ContactDetail extends ContactListItem {
  leads: string[];
  conversation_list: {
    id: string;
    status: string;
    rating: number | null;
    rating_comment: string | null;
    messages: number;
    started_at: string;
    last_message_at: string;
  }[];
  visit: {
    page_url: string | null;
    page_title: string | null;
    entry_page: string | null;
    referrer: string | null;
    journey: unknown;
    device: string | null;
    locale: string | null;
    timezone: string | null;
    country: string | null;
    page_views: number;
    first_seen_at: string;
    last_seen_at: string;
  } | null;
}

export async function showContact(
  sql: Executor,
  workspaceId: number,
  contactId: number,
): Promise<ContactDetail> {
  const [row] = await pageContacts(sql, workspaceId, { id: contactId, limit: 1 });
  if (!row) throw new NotFound("Contact not found.");
  const [conversations, visit] = await Promise.all([
    contactConversations(sql, workspaceId, contactId),
    contactVisit(sql, workspaceId, contactId),
  ]);
  const leads = [
    ...new Set(conversations.map((c) => c.visitor_email).filter((e): e is string => !!e)),
  ];
  return {
    ...contactItem(row),
    leads,
    conversation_list: conversations.map((c) => ({
      id: c.public_id,
      status: c.status,
      rating: c.rating,
      rating_comment: c.rating_comment,
      messages: c.messages,
      started_at: c.created_at.toISOString(),
      last_message_at: c.last_message_at.toISOString(),
    })),
    visit: visit && {
      page_url: visit.page_url,
      page_title: visit.page_title,
      entry_page: visit.entry_page,
      referrer: visit.referrer,
      journey: visit.journey,
      device: visit.user_agent,
      locale: visit.locale,
      timezone: visit.timezone,
      country: visit.country,
      page_views: visit.page_views,
      first_seen_at: visit.first_seen_at.toISOString(),
      last_seen_at: visit.last_seen_at.toISOString(),
    },
  };
}
