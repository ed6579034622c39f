/**
 * An agent's reply: takes the conversation over from any status (one state
 * machine), stores the message and leaves it for the widget to collect (at
 * once over realtime, or with the next heartbeat while the chat is closed).
 * A repeated `client_id` returns the message already stored, marked
 * `duplicate`, and sends nothing twice: concurrent retries serialise on the
 * conversation's row lock.
 */
import type { AppDeps } from "../../app/deps.ts";
import { appendMessage, findMessageByClientId, type MessageRow } from "../../db/messages.ts";
import { markConversationRead } from "../../db/inbox.ts";
import { timeOfDay } from "../display_time.ts";
import { publishEvent } from "../events.ts";
import { type AgentActor, lockConversation, transitionAsAgent } from "./agent_transition.ts";

export interface AgentReplyResult {
  message: { id: number; role: "agent"; content: string; at: string };
  duplicate: boolean;
}

export async function replyAsAgent(
  deps: AppDeps,
  actor: AgentActor,
  input: { conversationId: string; body: string; clientId?: string; timeZone?: string },
): Promise<AgentReplyResult> {
  const now = deps.clock();
  const { message, duplicate, publicId } = await deps.sql.begin(async (tx) => {
    const before = await lockConversation(tx, actor.workspaceId, input.conversationId);
    if (input.clientId) {
      const first = await findMessageByClientId(tx, actor.workspaceId, before.id, input.clientId);
      if (first) return { message: first, duplicate: true, publicId: before.public_id };
    }
    const { row } = await transitionAsAgent(tx, actor, before, "agentReply", now);
    const message = (await appendMessage(tx, actor.workspaceId, {
      conversationId: row.id,
      role: "agent",
      content: input.body,
      authorUserId: actor.userId,
      clientId: input.clientId ?? null,
      now,
    })) as MessageRow;
    // Whoever answers has read what they answered. Unread counts only visitor
    // messages, so an agent who had read them all has nothing to mark (a
    // statement less on the hottest agent path).
    if (!before.read_by.includes(actor.userId)) {
      await markConversationRead(tx, row.id, actor.userId, now);
    }
    return { message, duplicate: false, publicId: row.public_id };
  });
  if (!duplicate) {
    await publishEvent(deps, {
      type: "message.created",
      workspaceId: actor.workspaceId,
      conversationId: publicId,
      messageId: message.id,
      role: "agent",
      content: message.content,
      createdAt: message.created_at.toISOString(),
    });
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: actor.workspaceId,
      conversationId: publicId,
      reason: "reply",
      actorUserId: actor.userId,
    });
  }
  return {
    message: {
      id: message.id,
      role: "agent",
      content: message.content,
      at: timeOfDay(message.created_at, input.timeZone),
    },
    duplicate,
  };
}
