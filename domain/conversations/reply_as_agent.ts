/**
 * An agent's reply: takes the conversation over from any status (one state
 * machine), stores the message and leaves it for the widget to collect (at
 * once over realtime, or with the next heartbeat while the chat is closed).
 * A repeated `client_id` returns the message already stored, marked
 * `duplicate`, and sends nothing twice.
 *
 * Most replies go to a conversation the agent already owns and has read, where
 * the state machine has nothing to change: those are one statement. Any other
 * reply (a takeover, a first read, a retried `client_id`, an unknown
 * conversation) takes the locked transaction, where concurrent retries
 * serialise on the conversation's row lock.
 */
import type { AppDeps } from "../deps.ts";
import {
  appendMessageStatement,
  appendMessageWhile,
  findMessageByClientId,
  type MessageRow,
} from "../../db/messages.ts";
import { markConversationRead } from "../../db/inbox.ts";
import { pipelinedTransaction } from "../../db/pipelined_transaction.ts";
import { timeOfDay } from "../display_time.ts";
import { publishEvents } from "../events.ts";
import { type AgentActor, lockConversation, transitionAsAgent } from "./agent_transition.ts";
import { agentReplyFixedPoint } from "./state_machine.ts";

export interface AgentReplyResult {
  message: { id: number; role: "agent"; content: string; at: string };
  duplicate: boolean;
}

interface ReplyInput {
  conversationId: string;
  body: string;
  clientId?: string;
  timeZone?: string;
}

interface Stored {
  message: MessageRow;
  duplicate: boolean;
  publicId: string;
}

export async function replyAsAgent(
  deps: AppDeps,
  actor: AgentActor,
  input: ReplyInput,
): Promise<AgentReplyResult> {
  const now = deps.clock();
  const { message, duplicate, publicId } = await replyToOwnConversation(deps, actor, input, now) ??
    await replyWithTransition(deps, actor, input, now);
  if (!duplicate) {
    await publishEvents(deps, [
      {
        type: "message.created",
        workspaceId: actor.workspaceId,
        conversationId: publicId,
        messageId: message.id,
        role: "agent",
        content: message.content,
        createdAt: message.created_at.toISOString(),
      },
      {
        type: "conversation.updated",
        workspaceId: actor.workspaceId,
        conversationId: publicId,
        reason: "reply",
        actorUserId: actor.userId,
      },
    ]);
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

/**
 * One statement while the conversation is at `agentReply`'s fixed point for
 * this agent and they have read it: nothing to transition, nothing to mark.
 * Null when it is not (nothing written), for the locked path to decide.
 */
async function replyToOwnConversation(
  deps: AppDeps,
  actor: AgentActor,
  input: ReplyInput,
  now: Date,
): Promise<Stored | null> {
  const stored = await appendMessageWhile(
    deps.sql,
    actor.workspaceId,
    input.conversationId,
    agentReplyFixedPoint(actor.userId),
    actor.userId,
    {
      role: "agent",
      content: input.body,
      authorUserId: actor.userId,
      clientId: input.clientId ?? null,
      now,
    },
  );
  return stored && { ...stored, duplicate: false, publicId: stored.conversationPublicId };
}

/** The conversation locked, the state machine applied, the message stored. */
async function replyWithTransition(
  deps: AppDeps,
  actor: AgentActor,
  input: ReplyInput,
  now: Date,
): Promise<Stored> {
  // BEGIN leaves with the lock and COMMIT with the message: two round trips
  // to the database, not four.
  return await pipelinedTransaction(deps.sql, async (tx, commitWith) => {
    const before = await lockConversation(tx, actor.workspaceId, input.conversationId);
    if (input.clientId) {
      const first = await findMessageByClientId(tx, actor.workspaceId, before.id, input.clientId);
      if (first) return { message: first, duplicate: true, publicId: before.public_id };
    }
    const { row } = await transitionAsAgent(tx, actor, before, "agentReply", now);
    // Whoever answers has read what they answered. Unread counts only visitor
    // messages, so an agent who had read them all has nothing to mark.
    if (!before.read_by.includes(actor.userId)) {
      await markConversationRead(tx, row.id, actor.userId, now);
    }
    const [message] = await commitWith(appendMessageStatement(tx, actor.workspaceId, {
      conversationId: row.id,
      role: "agent",
      content: input.body,
      authorUserId: actor.userId,
      clientId: input.clientId ?? null,
      now,
    }));
    return { message: message!, duplicate: false, publicId: row.public_id };
  });
}
