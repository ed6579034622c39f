/**
 * An agent resolves a conversation; the visitor's next message reopens it on
 * its own. With the bot's `auto_actions` on, the summary and sure tags follow.
 */
import type { AppDeps } from "../deps.ts";
import type { ConversationStatus } from "../../db/conversations.ts";
import { type AgentActor, runAgentTransition } from "./agent_transition.ts";
import { autoActOnResolve } from "../assist/auto_act_on_resolve.ts";

export async function resolveConversation(
  deps: AppDeps,
  actor: AgentActor,
  conversationId: string,
): Promise<{ status: ConversationStatus; resolution: string | null }> {
  const row = await runAgentTransition(deps, actor, conversationId, "resolve", "resolve");
  // The bot's auto_actions (summary and sure tags) run after the agent has the answer.
  void autoActOnResolve(deps, { ...actor, conversationId });
  return { status: row.status, resolution: row.resolution };
}
