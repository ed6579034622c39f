/** An agent takes a conversation over: it is theirs, and the AI stops answering. */
import type { AppDeps } from "../deps.ts";
import type { ConversationStatus } from "../../db/conversations.ts";
import { type AgentActor, runAgentTransition } from "./agent_transition.ts";

export async function takeOverConversation(
  deps: AppDeps,
  actor: AgentActor,
  conversationId: string,
): Promise<{ status: ConversationStatus }> {
  const row = await runAgentTransition(deps, actor, conversationId, "takeover", "takeover");
  return { status: row.status };
}
