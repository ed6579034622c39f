/**
 * The history's filter as the caller sent it, checked and turned into ids of
 * the caller's workspace. A bot, tag or agent of another workspace is refused
 * with the same 422 as one that does not exist: the filter cannot be used to
 * learn what another workspace holds.
 */
import type { Executor } from "../../db/client.ts";
import {
  countSearchHits,
  type HistoryFilter,
  type HistoryKey,
  resolveFilterNames,
} from "../../db/conversation_history.ts";
import { Invalid } from "../errors.ts";
import type { ConversationStateCode } from "../conversations/state_words.ts";
import { searchTerms } from "./search_terms.ts";

export interface HistoryFilterInput {
  /** A bot's public key. */
  bot?: string;
  status?: "bot" | "agent" | "closed";
  /** A state of docs/vocabulary.md (domain/conversations/state_words.ts). */
  state?: ConversationStateCode;
  /** A user id, or "none" for unassigned conversations. */
  agent?: string;
  /** A tag id. */
  tag?: string;
  /** Started on or after this UTC day (YYYY-MM-DD). */
  from?: string;
  /** Started on or before this UTC day (YYYY-MM-DD), inclusive. */
  to?: string;
  rating?: "1" | "2" | "3" | "4" | "5" | "rated" | "unrated";
  q?: string;
}

/**
 * Below this many matching messages a word's matches are listed through the
 * GIN index first; at or above it, they are common enough to find by walking
 * the newest conversations (docs/dashboard.md, "Search"). One capped index
 * probe per word decides.
 */
export const SPARSE_SEARCH_CAP = 5000;

function utcDay(field: string, value: string): Date {
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) {
    throw Invalid.field(field, `The ${field} field must be a date (YYYY-MM-DD).`);
  }
  return d;
}

export async function resolveHistoryFilter(
  sql: Executor,
  workspaceId: number,
  input: HistoryFilterInput,
): Promise<HistoryFilter> {
  const filter: HistoryFilter = {};
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => (errors[field] = [message]);
  const tag = input.tag === undefined ? undefined : Number(input.tag);
  const agent = input.agent === undefined || input.agent === "none"
    ? undefined
    : Number(input.agent);
  const names = await resolveFilterNames(sql, workspaceId, { bot: input.bot, tag, agent });
  if (input.bot !== undefined) {
    if (names.bot === null) fail("bot", "No bot with that key in this workspace.");
    else filter.chatbotId = names.bot;
  }
  if (tag !== undefined) {
    if (names.tag === null) fail("tag", "No tag with that id in this workspace.");
    else filter.tagId = names.tag;
  }
  if (input.agent === "none") filter.assignee = "none";
  else if (agent !== undefined) {
    if (names.agent === null) fail("agent", "No member with that id in this workspace.");
    else filter.assignee = names.agent;
  }
  if (input.status) filter.status = input.status;
  if (input.state) filter.state = input.state;
  try {
    if (input.from !== undefined) filter.from = utcDay("from", input.from);
    if (input.to !== undefined) {
      filter.until = new Date(utcDay("to", input.to).getTime() + 86_400_000);
    }
    if (filter.from && filter.until && filter.until <= filter.from) {
      fail("to", "The to date must not be before the from date.");
    }
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    Object.assign(errors, err.errors);
  }
  if (input.rating === "rated" || input.rating === "unrated") filter.rating = input.rating;
  else if (input.rating !== undefined) filter.rating = Number(input.rating);
  if (input.q !== undefined && input.q.trim() !== "") {
    try {
      const words = searchTerms(input.q);
      const terms = [];
      for (const tsquery of words) {
        const hits = await countSearchHits(sql, workspaceId, tsquery, SPARSE_SEARCH_CAP);
        terms.push({ tsquery, sparse: hits < SPARSE_SEARCH_CAP });
      }
      filter.search = { terms, any: words.join(" | ") };
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      Object.assign(errors, err.errors);
    }
  }
  const fields = Object.keys(errors);
  if (fields.length) throw new Invalid(errors[fields[0]!]![0]!, errors);
  return filter;
}

/** The opaque `cursor` of the next page: where this page ended. */
export function encodeCursor(key: HistoryKey): string {
  return btoa(JSON.stringify([key.startedAt, key.id]))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The key a `cursor` names; Invalid (422 on `cursor`) when it is not one we gave out. */
export function decodeCursor(cursor: string): HistoryKey {
  try {
    const json = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const [startedAt, id] = JSON.parse(json) as unknown[];
    if (
      typeof startedAt === "string" &&
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(startedAt) &&
      Number.isSafeInteger(id) && (id as number) > 0
    ) return { startedAt, id: id as number };
  } catch { /* answered below */ }
  throw Invalid.field(
    "cursor",
    "The cursor is not one this list gave out; start from the first page.",
  );
}
