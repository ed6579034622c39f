/**
 * POST /api/agent/conversations/{conversation}/messages/{message}/correction:
 * an agent marks an AI reply as wrong and writes the right answer, saved as a
 * Q&A source of the bot and indexed before the answer returns.
 */
import { agentProcedure } from "../trpc.ts";
import { correctAsCaller, correctionInput, correctionSchema } from "../schemas/correction.ts";
import { z } from "zod";

export const correctAnswer = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/conversations/{conversation}/messages/{message}/correction",
      summary: "Correct an AI reply: its right answer becomes a Q&A source of the bot",
      description: "The question defaults to the visitor's message the reply answered. The " +
        "source is indexed before the answer returns (`status` `ready`), so the next visitor " +
        "asking the same or a reworded question is answered from it. A message that is not " +
        "an AI reply is 422 on `message`.",
      created: true,
      requestExample: { answer: "Express shipping costs 25 euros." },
    },
    permission: "handle-conversations",
  })
  .input(correctionInput)
  .output(z.object({ data: correctionSchema }))
  .mutation(({ ctx, input }) => correctAsCaller(ctx, input));
