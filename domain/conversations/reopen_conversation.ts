/** An agent reopens a closed conversation, handing it back to the AI. */
import type { AppDeps } from "../deps.ts";
import type { ConversationStatus } from "../../db/conversations.ts";
import { type AgentActor, runAgentTransition } from "./agent_transition.ts";

export async function reopenConversation(
  deps: AppDeps,
  actor: AgentActor,
  conversationId: string,
): Promise<{ status: ConversationStatus }> {
  const row = await runAgentTransition(deps, actor, conversationId, "reopen", "reopen");
  return { status: row.status };
}
