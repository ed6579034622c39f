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
      summary: "A reply drafted from the bot's knowledge and the conversation (one AI call)",
      description:
        "`suggestion` is null when there is nothing to answer yet (no visitor message since the last agent reply) or no provider key is configured; a `draft` is improved, not replaced. 403 when the bot's `copilot` flag is off.",
      errors: [502],
      requestExample: { draft: "yes returns ok within a month" },
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-suggest", limit: 30, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ conversation, draft: chars(4000).optional() }))
  .output(z.object({ id: z.int(), suggestion: z.string().nullable() }))
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
      summary: "Report what the agent did with a suggestion",
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-suggestion-outcome", limit: 60, windowSeconds: 60, by: "user" },
  })
  .input(z.object({
    suggestion: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    outcome: z.enum(OUTCOMES),
  }))
  .output(z.object({ id: z.int(), outcome: z.enum(OUTCOMES) }))
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
      summary: "Summarise the conversation, with intent and catalogue tag suggestions",
      description:
        "One structured-output AI call; stored on the conversation. 422 when it cannot be generated now (nothing to summarise, no key, provider failure); 403 when the bot's `copilot` flag is off.",
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
      id: z.int(),
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
      summary: "Attribute revenue to the conversation (replaces an earlier figure)",
      description:
        "`amount` in whole currency units, stored exactly as integer minor units of the ISO 4217 `currency`.",
      requestExample: { amount: 49.9, currency: "EUR", label: "Upsell: annual plan" },
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
    revenue_cents: z.int(),
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
