/**
 * The overview's figures in one call: the plan's limits against this month's
 * usage (messages, bots, seats), and the month's analytics as the portal
 * reports them (conversations, replies, tokens, cost, suggestions, revenue).
 */
import type { Executor } from "../../db/client.ts";
import { countSeatsTaken } from "../../db/daily_series.ts";
import { describePortalSession, type PortalSession } from "../portal/describe_portal_session.ts";
import { type MonthAnalytics, monthAnalytics } from "../analytics/month_analytics.ts";

export interface Overview {
  plan: string;
  usage: PortalSession["usage"] & { chatbot_limit: number; seats: number; agent_seats: number };
  month: MonthAnalytics;
}

export async function dashboardOverview(
  sql: Executor,
  workspaceId: number,
  now: Date,
): Promise<Overview> {
  const [session, month, seats] = await Promise.all([
    describePortalSession(sql, { workspaceId, user: { name: "", email: "", role: "" }, now }),
    monthAnalytics(sql, workspaceId, now),
    countSeatsTaken(sql, workspaceId),
  ]);
  return {
    plan: session.limits.plan,
    usage: {
      ...session.usage,
      chatbot_limit: session.limits.chatbot_limit,
      seats,
      agent_seats: session.limits.agent_seats,
    },
    month,
  };
}
