/**
 * What the portal shows about the signed-in user: user, company, the brand the
 * white-label portal wears, the plan's limits and this month's usage.
 */
import type { Executor } from "../../db/client.ts";
import { findPlanOfWorkspace, findWorkspace } from "../../db/workspaces.ts";
import { countChatbots, messagesUsed } from "../../db/analytics.ts";
import { NotFound } from "../errors.ts";
import { monthStart } from "../analytics/month.ts";

/** Product name shown as "powered by" under a white-label brand. */
export const PRODUCT_NAME = "Parley";

export interface PortalSession {
  user: { name: string; email: string; role: string };
  company: { name: string; plan: string };
  brand: { name: string; powered_by: string; logo_url: string | null };
  limits: {
    plan: string;
    monthly_message_limit: number | null;
    chatbot_limit: number;
    agent_seats: number;
  };
  usage: {
    messages_used: number;
    message_limit: number | null;
    usage_percent: number | null;
    chatbots: number;
  };
}

export async function describePortalSession(
  sql: Executor,
  input: {
    workspaceId: number;
    user: { name: string; email: string; role: string };
    now: Date;
  },
): Promise<PortalSession> {
  const workspace = await findWorkspace(sql, input.workspaceId);
  if (!workspace) throw new NotFound("Workspace not found.");
  const plan = await findPlanOfWorkspace(sql, workspace.id);
  const used = await messagesUsed(sql, workspace.id, monthStart(input.now));
  const bots = await countChatbots(sql, workspace.id);
  const limit = plan.monthly_message_limit;
  return {
    user: input.user,
    company: { name: workspace.name, plan: plan.code },
    brand: {
      name: workspace.brand_name ?? workspace.name,
      powered_by: PRODUCT_NAME,
      logo_url: workspace.brand_logo_url,
    },
    limits: {
      plan: plan.name,
      monthly_message_limit: limit,
      chatbot_limit: plan.chatbot_limit,
      agent_seats: plan.agent_seats,
    },
    usage: {
      messages_used: used,
      message_limit: limit,
      // One decimal; null when the plan has no limit (nothing to be a percent of).
      usage_percent: limit === null
        ? null
        : limit === 0
        ? 100
        : Math.round(used / limit * 1000) / 10,
      chatbots: bots,
    },
  };
}
