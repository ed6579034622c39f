/**
 * The portal's analytics for the current calendar month (UTC). Cost is held
 * in integer micro-cents (10^8 per currency unit) and returned in whole
 * currency units, rounded to the micro-cent's precision.
 */
import type { Executor } from "../../db/client.ts";
import { messagesUsed, monthTotals } from "../../db/analytics.ts";
import { assistMonthTotals, suggestionCountsByBot } from "../../db/ai_assist_calls.ts";
import { revenueByCurrency } from "../../db/conversation_assist.ts";
import { minorUnitDigits } from "../money.ts";
import { recommendationMonthTotals } from "../../db/product_recommendations.ts";
import { monthStart, nextMonthStart } from "./month.ts";

const MICRO_CENTS_PER_UNIT = 100_000_000n;

export interface MonthAnalytics {
  period: "month";
  since: string;
  conversations: number;
  messages: { ai_replies: number; human_replies: number; visitor_messages: number; total: number };
  tokens: number;
  cost: number;
  messages_used: number;
  /** Agents' AI suggestions per bot this month and how many were used. */
  suggestions: BotAcceptance[];
  /** Revenue agents attributed to conversations this month, per currency. */
  revenue: { currency: string; amount: number; cents: number; conversations: number }[];
  /** Products shown with AI replies this month, and the first clicks on them. */
  recommendations: { impressions: number; clicks: number };
}

export interface BotAcceptance {
  chatbot: string;
  name: string;
  suggested: number;
  inserted: number;
  edited: number;
  dismissed: number;
  /** (inserted + edited) / suggested, 0..1 rounded to 3 places; null before any suggestion. */
  acceptance_rate: number | null;
}

export async function monthAnalytics(
  sql: Executor,
  workspaceId: number,
  now: Date,
): Promise<MonthAnalytics> {
  const since = monthStart(now);
  const until = nextMonthStart(now);
  // Agents' AI calls (suggestions, summaries) count like the AI's replies.
  const [t, assist, bots, revenue, recommendations] = await Promise.all([
    monthTotals(sql, workspaceId, since, until),
    assistMonthTotals(sql, workspaceId, since, until),
    suggestionCountsByBot(sql, workspaceId, since, until),
    revenueByCurrency(sql, workspaceId, since, until),
    recommendationMonthTotals(sql, workspaceId, since, until),
  ]);
  return {
    period: "month",
    since: since.toISOString(),
    conversations: t.conversations,
    messages: {
      ai_replies: t.ai_replies,
      human_replies: t.human_replies,
      visitor_messages: t.visitor_messages,
      total: t.ai_replies + t.human_replies + t.visitor_messages,
    },
    tokens: Number(t.tokens) + Number(assist.tokens),
    cost: microCentsToUnits(BigInt(t.cost_micro_cents) + BigInt(assist.cost_micro_cents)),
    messages_used: await messagesUsed(sql, workspaceId, since),
    suggestions: bots.map((b) => ({
      chatbot: b.public_key,
      name: b.name,
      suggested: b.suggested,
      inserted: b.inserted,
      edited: b.edited,
      dismissed: b.dismissed,
      acceptance_rate: b.suggested
        ? Math.round(((b.inserted + b.edited) / b.suggested) * 1000) / 1000
        : null,
    })),
    revenue: revenue.map((r) => ({
      currency: r.currency,
      cents: Number(r.cents),
      amount: Number(r.cents) / 10 ** minorUnitDigits(r.currency),
      conversations: r.conversations,
    })),
    recommendations,
  };
}

/** Exact integer division first, so large totals keep every whole unit. */
export function microCentsToUnits(microCents: bigint): number {
  const whole = microCents / MICRO_CENTS_PER_UNIT;
  const rest = microCents % MICRO_CENTS_PER_UNIT;
  return Number(whole) + Number(rest) / Number(MICRO_CENTS_PER_UNIT);
}
