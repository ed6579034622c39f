/**
 * A bot's conversations as a length-aware page (the Laravel paginator shape
 * integrators of such APIs parse): most recent activity first, `per_page`
 * defaulting to 20 and clamped to 1..100, links built from BASE_URL that keep
 * the caller's `per_page` so following them really yields the next page.
 */
import type { Executor } from "../../db/client.ts";
import { type ConversationListItem, pageBotConversations } from "../../db/conversations.ts";

export const PER_PAGE_DEFAULT = 20;
export const PER_PAGE_MAX = 100;

export interface ConversationPage {
  current_page: number;
  data: ConversationListItem[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
}

export async function pageConversations(
  sql: Executor,
  input: {
    workspaceId: number;
    chatbotId: number;
    /** The list's URL without query: `{BASE_URL}/api/v1/chatbots/{key}/conversations`. */
    path: string;
    page?: number;
    perPage?: number;
  },
): Promise<ConversationPage> {
  const perPage = Math.min(PER_PAGE_MAX, Math.max(1, input.perPage ?? PER_PAGE_DEFAULT));
  const page = Math.max(1, input.page ?? 1);
  const { rows, total } = await pageBotConversations(sql, input.workspaceId, input.chatbotId, {
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const url = (n: number) => {
    const q = new URLSearchParams();
    if (input.perPage !== undefined) q.set("per_page", String(perPage));
    q.set("page", String(n));
    return `${input.path}?${q}`;
  };
  const from = rows.length ? (page - 1) * perPage + 1 : null;
  return {
    current_page: page,
    data: rows,
    first_page_url: url(1),
    from,
    last_page: lastPage,
    last_page_url: url(lastPage),
    next_page_url: page < lastPage ? url(page + 1) : null,
    path: input.path,
    per_page: perPage,
    prev_page_url: page > 1 ? url(page - 1) : null,
    to: from === null ? null : from + rows.length - 1,
    total,
  };
}
