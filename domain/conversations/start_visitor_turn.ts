/**
 * A visitor's message arrives (v1 or widget): in one transaction find or start
 * the conversation, reopen it if it was closed, store the message, bump its
 * activity time and take one unit of the monthly quota. A refused quota rolls
 * everything back, so a 429 leaves nothing behind.
 */
import type { AppDeps } from "../../app/deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import type { Tx } from "../../db/client.ts";
import {
  type ConversationRow,
  findConversationByPublicId,
  insertConversation,
  updateConversation,
} from "../../db/conversations.ts";
import { appendMessage, type MessageRow } from "../../db/messages.ts";
import { NotFound } from "../errors.ts";
import { takeMessageQuota } from "../usage/take_message_quota.ts";
import { aiMayAnswer, applyTransition } from "./state_machine.ts";

export interface VisitorTurnInput {
  workspaceId: number;
  bot: ChatbotRow;
  visitorId: string;
  /** Public UUID of a conversation to continue; omitted starts a new one. */
  conversationId?: string;
  content: string;
  /** Free context, merged over what the conversation already holds. */
  meta?: Record<string, unknown>;
  visitor?: { name?: string; email?: string; phone?: string };
  channel?: "api" | "widget";
  /** Widget: the conversation must have been opened by `visitorId`, else NotFound. */
  requireVisitorMatch?: boolean;
}

export interface VisitorTurn {
  conversation: ConversationRow;
  visitorMessage: MessageRow;
  /** False while a human owns the conversation: nobody calls the AI then. */
  aiShouldAnswer: boolean;
  /** Why the AI stays silent, for the caller to show; null when it answers. */
  note: string | null;
}

export const HUMAN_OWNS_NOTE =
  "A human agent is handling this conversation, so the AI does not reply; the agent will answer here.";

export async function startVisitorTurn(
  deps: AppDeps,
  input: VisitorTurnInput,
): Promise<VisitorTurn> {
  const now = deps.clock();
  let changed = input.conversationId === undefined;
  const result = await deps.sql.begin(async (tx) => {
    let conversation = await openConversation(tx, input, now);
    await takeMessageQuota(tx, input.workspaceId, now);
    const before = conversation.status;
    conversation = await applyTransition(tx, conversation, "visitorMessage", { now });
    changed ||= conversation.status !== before;
    const visitorMessage = (await appendMessage(tx, input.workspaceId, {
      conversationId: conversation.id,
      role: "visitor",
      content: input.content,
      now,
    }))!;
    return { conversation: { ...conversation, last_message_at: now }, visitorMessage };
  });
  const aiShouldAnswer = aiMayAnswer(result.conversation);
  await deps.bus.emit({
    type: "message.created",
    workspaceId: input.workspaceId,
    conversationId: result.conversation.public_id,
    messageId: result.visitorMessage.id,
    role: "visitor",
  }).catch((err) => deps.log.warn("event not delivered", { err: String(err) }));
  if (changed) {
    await deps.bus.emit({
      type: "conversation.changed",
      workspaceId: input.workspaceId,
      conversationId: result.conversation.public_id,
      status: result.conversation.status,
    }).catch((err) => deps.log.warn("event not delivered", { err: String(err) }));
  }
  return { ...result, aiShouldAnswer, note: aiShouldAnswer ? null : HUMAN_OWNS_NOTE };
}

async function openConversation(
  tx: Tx,
  input: VisitorTurnInput,
  now: Date,
): Promise<ConversationRow> {
  const visitor = {
    visitor_name: input.visitor?.name || undefined,
    visitor_email: input.visitor?.email || undefined,
    visitor_phone: input.visitor?.phone || undefined,
  };
  if (input.conversationId === undefined) {
    return await insertConversation(tx, input.workspaceId, {
      chatbotId: input.bot.id,
      visitorId: input.visitorId,
      channel: input.channel ?? "api",
      meta: input.meta ?? {},
      visitorName: visitor.visitor_name,
      visitorEmail: visitor.visitor_email,
      visitorPhone: visitor.visitor_phone,
      now,
    });
  }
  const found = await findConversationByPublicId(tx, input.workspaceId, input.conversationId, {
    forUpdate: true,
  });
  if (
    !found || found.chatbot_id !== input.bot.id ||
    (input.requireVisitorMatch && found.visitor_id !== input.visitorId)
  ) {
    throw new NotFound("Conversation not found.");
  }
  const meta = input.meta ? { ...found.meta, ...input.meta } : undefined;
  const patch = { ...visitor, meta };
  if (Object.values(patch).every((v) => v === undefined)) return found;
  return await updateConversation(tx, input.workspaceId, found.id, patch);
}
