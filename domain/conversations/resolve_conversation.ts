/** An agent resolves a conversation; the visitor's next message reopens it on its own. */
import type { AppDeps } from "../deps.ts";
import type { ConversationStatus } from "../../db/conversations.ts";
import { type AgentActor, runAgentTransition } from "./agent_transition.ts";

export async function resolveConversation(
  deps: AppDeps,
  actor: AgentActor,
  conversationId: string,
): Promise<{ status: ConversationStatus; resolution: string | null }> {
  const row = await runAgentTransition(deps, actor, conversationId, "resolve", "resolve");
  return { status: row.status, resolution: row.resolution };
}
