/**
 * Text limits as the spec counts them: characters (Unicode code points).
 * zod's `.max` counts UTF-16 units, so an emoji would count twice and a
 * visitor's 4,000-character message could be refused.
 */
import { z } from "zod";

/** A refinement: at most `max` code points, reported like zod's own `too_big`. */
export function atMostChars(max: number) {
  return (text: string, ctx: z.RefinementCtx) => {
    // Counting code points costs an array; only needed past `max` UTF-16 units.
    if (text.length > max && [...text].length > max) {
      ctx.addIssue({
        code: "too_big",
        origin: "string",
        maximum: max,
        inclusive: true,
        input: text,
      });
    }
  };
}

/** A string of at most `max` characters, with `maxLength` kept in the OpenAPI document. */
export function chars(max: number) {
  return z.string().superRefine(atMostChars(max)).meta({ maxLength: max });
}
