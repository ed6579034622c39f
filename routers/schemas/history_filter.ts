/**
 * The conversation history's filter as query parameters, shared by the list
 * (`GET /api/dashboard/conversations`) and its CSV export. Strings all, as a
 * query string carries them; the domain turns them into this workspace's ids.
 */
import { z } from "zod";
import { atMostChars } from "./text.ts";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date such as 2026-01-31.");
const id = z.string().regex(/^[1-9]\d{0,14}$/, "Use a numeric id.");

export const historyFilterShape = {
  bot: z.string().min(1).max(255).optional().meta({
    description: "A bot's public key.",
    example: "acme-helper",
  }),
  status: z.enum(["bot", "agent", "closed"]).optional().meta({
    description: "`bot` (with the AI), `agent` (with a human) or `closed`.",
  }),
  state: z.enum(["ai", "waiting", "human", "resolved"]).optional().meta({
    description: "Where the conversation stands, in the words of docs/vocabulary.md: `ai` " +
      "(with the AI, nobody asked for a person), `waiting` (waiting for a human: status `bot` " +
      "with handoff_state `handoff_pending`), `human` (with a human) or `resolved`.",
    example: "waiting",
  }),
  agent: z.union([z.literal("none"), id]).optional().meta({
    description: "The assigned member's user id, or `none` for unassigned conversations.",
    example: "12",
  }),
  tag: id.optional().meta({
    description: "A tag id: conversations carrying it.",
    example: "3",
  }),
  from: day.optional().meta({
    description: "Started on or after this UTC day (YYYY-MM-DD).",
    example: "2026-01-01",
  }),
  to: day.optional().meta({
    description: "Started on or before this UTC day, inclusive.",
    example: "2026-01-31",
  }),
  rating: z.enum(["1", "2", "3", "4", "5", "rated", "unrated"]).optional().meta({
    description: "The visitor's score (1 to 5), `rated` or `unrated`.",
    example: "5",
  }),
  q: z.string().superRefine(atMostChars(200)).optional().meta({
    description: "Words that must each appear in some message of the conversation (each " +
      "as a prefix: `refund` finds `refunds`).",
    example: "refund damaged",
    maxLength: 200,
  }),
};

export const historyFilterInput = z.object(historyFilterShape);
