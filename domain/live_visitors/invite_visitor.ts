/**
 * An agent invites a visitor who is browsing now into a chat. One
 * transaction: the visitor's open conversation on the sending bot is taken
 * over (200), or a new human-owned conversation is opened (201), and the
 * agent's message is stored undelivered, so the visitor's next heartbeat
 * hands it over (an open chat at once through `message.created`). A failure
 * saves nothing and is a 500 that is safe to retry.
 */
import type { AppDeps } from "../deps.ts";
import { appendMessage, type MessageRow } from "../../db/messages.ts";
import { findLatestVisitor } from "../../db/visitors.ts";
import { findLatestOpenConversation } from "../../db/widget_conversations.ts";
import {
  findInvitingBot,
  findOpenConversationBot,
  insertInvitedConversation,
  lockVisitorForInvite,
} from "../../db/invited_conversations.ts";
import { logConversationEvent } from "../../db/conversation_events.ts";
import { markConversationRead } from "../../db/inbox.ts";
import { lockConversation, transitionAsAgent } from "../conversations/agent_transition.ts";
import { Conflict, DomainError, Invalid, NotFound, ServerFault } from "../errors.ts";
import { publishEvent } from "../events.ts";
import { POLL_SECONDS } from "../widget/heartbeat.ts";
import { VISITOR_ONLINE_SECONDS } from "../visitors/online.ts";

export const VISITOR_ID_MAX = 100;

export interface InviteInput {
  workspaceId: number;
  userId: number;
  visitorId: string;
  message: string;
  chatbotId?: number;
}

export interface InviteResult {
  conversationId: string;
  created: boolean;
  deliveryWithinSeconds: number;
  message: MessageRow;
}

export async function inviteVisitor(deps: AppDeps, input: InviteInput): Promise<InviteResult> {
  const visitorId = [...input.visitorId].slice(0, VISITOR_ID_MAX).join("");
  if (!visitorId.trim()) throw new NotFound("The visitor id is empty.");
  if (!input.message.trim()) throw Invalid.field("message", "The message must not be empty.");
  const now = deps.clock();
  const visitor = await findLatestVisitor(deps.sql, input.workspaceId, visitorId);
  // No heartbeat yet (e.g. a visitor who wrote through the integration API): an open
  // conversation is still theirs to be invited into (200); nothing at all is a 404.
  const openOn = visitor
    ? null
    : await findOpenConversationBot(deps.sql, input.workspaceId, visitorId, input.chatbotId);
  if (!visitor && openOn === null) {
    throw new NotFound("No visitor with that id has been seen on your sites.");
  }
  if (visitor && now.getTime() - visitor.last_seen_at.getTime() > VISITOR_ONLINE_SECONDS * 1000) {
    throw new Conflict("The visitor has left the site.");
  }
  const bot = await findInvitingBot(deps.sql, input.workspaceId, {
    chatbotId: input.chatbotId ?? openOn ?? undefined,
    preferredId: visitor?.chatbot_id ?? openOn!,
  });
  if (!bot) {
    throw input.chatbotId !== undefined
      ? Invalid.field("chatbot_id", "No active bot of this workspace has that id.")
      : Invalid.field("chatbot_id", "The workspace has no active bot to send from.");
  }
  let outcome: { conversationId: string; created: boolean; message: MessageRow; human: boolean };
  try {
    outcome = await deps.sql.begin(async (tx) => {
      await lockVisitorForInvite(tx, bot.id, visitorId);
      const open = await findLatestOpenConversation(tx, input.workspaceId, bot.id, visitorId);
      const actor = { workspaceId: input.workspaceId, userId: input.userId };
      let conversation;
      if (open) {
        // The one state machine: a human owns it now, logged like a takeover.
        const before = await lockConversation(tx, input.workspaceId, open.public_id);
        conversation = (await transitionAsAgent(tx, actor, before, "invite", now)).row;
      } else {
        conversation = await insertInvitedConversation(tx, input.workspaceId, {
          chatbotId: bot.id,
          visitorId,
          agentUserId: input.userId,
          now,
        });
        await logConversationEvent(tx, input.workspaceId, {
          conversationId: conversation.id,
          type: "human_connected",
          source: "agent",
          actorUserId: input.userId,
          now,
        });
      }
      const message = await appendMessage(tx, input.workspaceId, {
        conversationId: conversation.id,
        role: "agent",
        content: input.message,
        authorUserId: input.userId,
        now,
      });
      if (!message) throw new Error("the conversation vanished while inviting");
      // Whoever wrote it has read it: the invitation is not unread for its author.
      await markConversationRead(tx, conversation.id, input.userId, now);
      return {
        conversationId: conversation.public_id,
        created: !open,
        message,
        human: open !== null && (open.status === "agent" || open.handoff_state !== "bot_active"),
      };
    });
  } catch (err) {
    if (err instanceof DomainError) throw err;
    deps.log.error("invite failed; nothing was saved", { err: String(err) });
    throw new ServerFault("The chat could not be started; nothing was saved, retry is safe.");
  }
  await publishEvent(deps, {
    type: "conversation.updated",
    workspaceId: input.workspaceId,
    conversationId: outcome.conversationId,
    reason: "invite",
    actorUserId: input.userId,
  });
  await publishEvent(deps, {
    type: "message.created",
    workspaceId: input.workspaceId,
    conversationId: outcome.conversationId,
    messageId: outcome.message.id,
    role: "agent",
    content: outcome.message.content,
    createdAt: outcome.message.created_at.toISOString(),
  });
  return {
    conversationId: outcome.conversationId,
    created: outcome.created,
    deliveryWithinSeconds: deliveryWithin(visitor?.chat_open ?? false, outcome.human),
    message: outcome.message,
  };
}

/**
 * The longest wait before the visitor's widget fetches the message: the poll
 * interval the heartbeat last gave it (fast for an open window on a
 * human-owned chat, slower for an open window otherwise, slowest when closed).
 */
function deliveryWithin(chatOpen: boolean, alreadyHuman: boolean): number {
  if (!chatOpen) return POLL_SECONDS.idle;
  return alreadyHuman ? POLL_SECONDS.humanOpen : POLL_SECONDS.open;
}
