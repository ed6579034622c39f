/**
 * A knowledge source as the portal and the dashboard show it, and the input
 * that creates one, with the per-type required fields checked the same way on
 * both surfaces.
 */
import { z } from "zod";
import { chars } from "./text.ts";
import { Invalid } from "../../domain/errors.ts";
import type { PortalSourceInput } from "../../domain/knowledge/create_portal_source.ts";

export const sourceSchema = z.object({
  id: z.int(),
  type: z.string().meta({ examples: ["url"] }),
  title: z.string(),
  source_url: z.string().nullable(),
  status: z.string().meta({ examples: ["ready"] }),
  chunk_count: z.int(),
  created_at: z.string(),
  error: z.string().nullable(),
  pages_found: z.int().nullable(),
  pages_indexed: z.int().nullable(),
  sync_schedule: z.enum(["off", "daily", "weekly"]).nullable().meta({
    description: "Url sources: how often the site is crawled again (null for other types)",
  }),
  next_sync_at: z.string().nullable().meta({
    description: "When the next scheduled sync is due (null when the schedule is off)",
  }),
  last_sync: z.object({
    added: z.int(),
    changed: z.int(),
    removed: z.int(),
    failed: z.int(),
    finished_at: z.string(),
  }).nullable().meta({
    description: "What the last completed crawl found: pages added, changed (re-embedded), " +
      "removed (404/410 or no longer found) and failed; null before the first",
  }),
});

/** The body that sets a url source's sync schedule. */
export const syncScheduleFields = {
  sync_schedule: z.enum(["off", "daily", "weekly"]),
};

/** "Sync now": a few per minute per user; each is a crawl of a whole site. */
export const SYNC_NOW_RATE_LIMIT = {
  name: "knowledge-sync-now",
  limit: 6,
  windowSeconds: 60,
  by: "user",
} as const;

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.domain })
  .or(z.url({ protocol: /^https?$/ }));

export const newSourceFields = {
  type: z.enum(["text", "qa", "url"]),
  title: chars(200).optional(),
  content: chars(1_000_000).optional(),
  question: chars(2000).optional(),
  answer: chars(50_000).optional(),
  source_url: z.string().max(2048).pipe(httpUrl).optional(),
};

type NewSourceFields = z.infer<z.ZodObject<typeof newSourceFields>>;

/** The domain's input for a type, or a 422 naming each field the type needs and lacks. */
export function newSourceInput(input: NewSourceFields): PortalSourceInput {
  const required = (field: "content" | "question" | "answer" | "source_url") => {
    const value = input[field];
    if (value === undefined || value.trim() === "") {
      return {
        [field]: [`The ${field.replace("_", " ")} field is required when type is ${input.type}.`],
      };
    }
    return {};
  };
  const errors = input.type === "text"
    ? required("content")
    : input.type === "qa"
    ? { ...required("question"), ...required("answer") }
    : required("source_url");
  if (Object.keys(errors).length) {
    throw new Invalid(Object.values(errors)[0]![0]!, errors);
  }
  const title = input.title;
  return input.type === "text"
    ? { type: "text", title, content: input.content! }
    : input.type === "qa"
    ? { type: "qa", title, question: input.question!, answer: input.answer! }
    : { type: "url", title, source_url: input.source_url! };
}
