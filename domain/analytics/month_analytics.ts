/**
 * The portal's analytics for the current calendar month (UTC). Cost is held
 * in integer micro-cents (10^8 per currency unit) and returned in whole
 * currency units, rounded to the micro-cent's precision.
 */
import type { Executor } from "../../db/client.ts";
import { messagesUsed, monthTotals } from "../../db/analytics.ts";
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
}

export async function monthAnalytics(
  sql: Executor,
  workspaceId: number,
  now: Date,
): Promise<MonthAnalytics> {
  const since = monthStart(now);
  const t = await monthTotals(sql, workspaceId, since, nextMonthStart(now));
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
    tokens: t.tokens,
    cost: microCentsToUnits(BigInt(t.cost_micro_cents)),
    messages_used: await messagesUsed(sql, workspaceId, since),
  };
}

/** Exact integer division first, so large totals keep every whole unit. */
export function microCentsToUnits(microCents: bigint): number {
  const whole = microCents / MICRO_CENTS_PER_UNIT;
  const rest = microCents % MICRO_CENTS_PER_UNIT;
  return Number(whole) + Number(rest) / Number(MICRO_CENTS_PER_UNIT);
}
