/**
 * The agent's AI assistant and revenue: POST conversations/{conversation}/suggest,
 * POST suggestion/{suggestion}/outcome, POST conversations/{conversation}/summary,
 * POST conversations/{conversation}/revenue (docs/agent-api.md).
 */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { suggestReply } from "../../domain/assist/suggest_reply.ts";
import {
  OUTCOMES,
  reportSuggestionOutcome,
} from "../../domain/assist/report_suggestion_outcome.ts";
import { summarizeConversation } from "../../domain/assist/summarize_conversation.ts";
import { recordRevenue } from "../../domain/assist/record_revenue.ts";

const conversation = z.string().max(100);

export const suggest = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/conversations/{conversation}/suggest",
      tags: ["agent"],
      summary: "A reply drafted from the bot's knowledge and the conversation (one AI call)",
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-suggest", limit: 30, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ conversation, draft: chars(4000).optional() }))
  .output(z.object({ id: z.number().int(), suggestion: z.string().nullable() }))
  .mutation(({ ctx, input }) =>
    suggestReply(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      userId: ctx.auth!.user.id,
      conversationId: input.conversation,
      draft: input.draft,
    })
  );

export const suggestionOutcome = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/suggestion/{suggestion}/outcome",
      tags: ["agent"],
      summary: "Report what the agent did with a suggestion",
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-suggestion-outcome", limit: 60, windowSeconds: 60, by: "user" },
  })
  .input(z.object({
    suggestion: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    outcome: z.enum(OUTCOMES),
  }))
  .output(z.object({ id: z.number().int(), outcome: z.enum(OUTCOMES) }))
  .mutation(({ ctx, input }) =>
    reportSuggestionOutcome(ctx.deps.sql, {
      workspaceId: ctx.auth!.workspace.id,
      suggestionId: input.suggestion,
      outcome: input.outcome,
      now: ctx.now,
    })
  );

export const summary = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/conversations/{conversation}/summary",
      tags: ["agent"],
      summary: "Summarise the conversation, with intent and catalogue tag suggestions",
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-summary", limit: 10, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ conversation }))
  .output(z.object({
    summary: z.string(),
    summary_at: z.string(),
    intent: z.string().nullable(),
    tag_suggestions: z.array(z.object({
      id: z.number().int(),
      name: z.string(),
      confidence: z.number(),
      reason: z.string(),
    })),
  }))
  .mutation(({ ctx, input }) =>
    summarizeConversation(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      userId: ctx.auth!.user.id,
      conversationId: input.conversation,
    })
  );

export const revenue = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/conversations/{conversation}/revenue",
      tags: ["agent"],
      summary: "Attribute revenue to the conversation (replaces an earlier figure)",
    },
    permission: "handle-conversations",
  })
  .input(z.object({
    conversation,
    amount: z.number().min(0).max(1_000_000_000),
    currency: z.string().trim().length(3),
    label: chars(120).optional(),
  }))
  .output(z.object({
    revenue_cents: z.number().int(),
    revenue_amount: z.number(),
    revenue_currency: z.string(),
    revenue_label: z.string().nullable(),
  }))
  .mutation(({ ctx, input }) =>
    recordRevenue(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      userId: ctx.auth!.user.id,
      conversationId: input.conversation,
      amount: input.amount,
      currency: input.currency,
      label: input.label,
    })
  );
