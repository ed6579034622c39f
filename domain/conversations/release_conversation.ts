/** An agent hands a conversation back to the AI, which answers the visitor's next message. */
import type { AppDeps } from "../deps.ts";
import type { ConversationStatus } from "../../db/conversations.ts";
import { type AgentActor, runAgentTransition } from "./agent_transition.ts";

export async function releaseConversation(
  deps: AppDeps,
  actor: AgentActor,
  conversationId: string,
): Promise<{ status: ConversationStatus }> {
  const row = await runAgentTransition(deps, actor, conversationId, "release", "release");
  return { status: row.status };
}
