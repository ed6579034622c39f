/**
 * A correction of an AI reply, shared by the agent and dashboard surfaces:
 * the request body (question optional, answer required) and the answer's shape.
 */
import { z } from "zod";
import { chars } from "./text.ts";
import type { RequestContext } from "../context.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import { correctAiAnswer, type CorrectionActor } from "../../domain/knowledge/correct_ai_answer.ts";

const notBlank = (field: string, max: number) =>
  chars(max).refine((s) => s.trim().length > 0, `The ${field} field must not be whitespace only.`);

/** Path and body of "correct this answer". */
export const correctionInput = z.object({
  conversation: z.string().max(255),
  message: z.coerce.number().int().min(1).meta({ description: "The AI reply's message id" }),
  question: notBlank("question", 2000).optional().meta({
    description: "Defaults to the visitor's message the reply answered",
  }),
  answer: notBlank("answer", 50_000),
});

/** Body of a correction's edit (dashboard): either field, or both. */
export const correctionEdit = {
  question: notBlank("question", 2000).optional(),
  answer: notBlank("answer", 50_000).optional(),
};

export const correctionSchema = z.object({
  id: z.int(),
  source_id: z.int().meta({
    description: "The Q&A knowledge source holding it (delete it to delete the correction)",
  }),
  question: z.string(),
  answer: z.string(),
  status: z.string().meta({ description: "The source's state: `ready` once it answers" }),
  chunk_count: z.int(),
  conversation_id: z.string().nullable().meta({
    description: "The conversation it was made in; null once retention has deleted it",
  }),
  message_id: z.int().nullable(),
  corrected_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Both doors' "correct this answer": the caller corrects, the answer is 201 `{data}`. */
export async function correctAsCaller(
  ctx: RequestContext,
  input: z.infer<typeof correctionInput>,
) {
  const data = await correctAiAnswer(ctx.deps, correctionActor(ctx), {
    conversationId: input.conversation,
    messageId: input.message,
    question: input.question,
    answer: input.answer,
  });
  ctx.response.status = 201;
  return { data };
}

/** The signed-in caller as the author of a correction. */
export function correctionActor(ctx: RequestContext): CorrectionActor {
  const auth = ctx.auth!;
  return {
    workspaceId: auth.workspace.id,
    userId: auth.user.id,
    userName: auth.user.name,
    audit: actorOf(auth, ctx.ip),
  };
}
