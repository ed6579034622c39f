/**
 * Corrections in the dashboard: correcting an AI reply from a history
 * transcript (owners and administrators), a bot's list of corrections (viewers
 * read it too) and editing one. Deleting a correction is deleting its source
 * (DELETE …/knowledge/{source}).
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import {
  correctAsCaller,
  correctionEdit,
  correctionInput,
  correctionSchema,
} from "../schemas/correction.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import { listCorrections } from "../../domain/knowledge/list_corrections.ts";
import { editCorrection } from "../../domain/knowledge/edit_correction.ts";

const key = z.string().min(1).max(255);

export const correctAnswerProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/conversations/{conversation}/messages/{message}/correction",
      summary: "Correct an AI reply: its right answer becomes a Q&A source of the bot",
      description: "As the agent API's: the question defaults to the visitor's message the " +
        "reply answered; the source is indexed before the answer returns.",
      created: true,
      requestExample: { answer: "Express shipping costs 25 euros." },
    },
    permission: "manage-content",
  })
  .input(correctionInput)
  .output(z.object({ data: correctionSchema }))
  .mutation(({ ctx, input }) => correctAsCaller(ctx, input));

export const listCorrectionsProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/chatbots/{key}/corrections",
      summary: "A bot's corrections of AI replies, newest first",
    },
  })
  .input(z.object({ key }))
  .output(z.object({ data: z.array(correctionSchema) }))
  .query(async ({ ctx, input }) => ({
    data: await listCorrections(ctx.deps.sql, ctx.auth!.workspace.id, input.key),
  }));

export const editCorrectionProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/dashboard/chatbots/{key}/corrections/{correction}",
      summary: "Edit a correction's question or answer (indexed again at once)",
    },
    permission: "manage-content",
  })
  .input(z.object({ key, correction: z.coerce.number().int().min(1), ...correctionEdit }))
  .output(z.object({ data: correctionSchema }))
  .mutation(async ({ ctx, input }) => ({
    data: await editCorrection(
      ctx.deps,
      ctx.auth!.workspace.id,
      input.key,
      input.correction,
      { question: input.question, answer: input.answer },
      { actor: actorOf(ctx.auth!, ctx.ip), now: ctx.now },
    ),
  }));
