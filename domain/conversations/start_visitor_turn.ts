/**
 * A visitor's message arrives (v1 or widget): atomically find or start the
 * conversation, reopen it if it was closed, store the message, bump its
 * activity time and take one unit of the monthly quota. A refused quota rolls
 * everything back, so a 429 leaves nothing behind. A new conversation's first
 * turn is one statement (db/first_turn.ts); a later turn is a transaction that
 * locks the conversation and also reads the history the reply needs, so no
 * query is left between the commit and the provider call. A reopen's webhook
 * event is written by the same transaction (outbox).
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import type { Tx } from "../../db/client.ts";
import {
  type ConversationRow,
  findConversationByPublicId,
  updateConversation,
} from "../../db/conversations.ts";
import { insertFirstTurn } from "../../db/first_turn.ts";
import { appendMessage, type MessageRow, recentMessages } from "../../db/messages.ts";
import { NotFound } from "../errors.ts";
import { type ParleyEvent, publishEvents } from "../events.ts";
import { recordInOutbox } from "../webhooks/outbox.ts";
import { recordingsSettled } from "../webhooks/recording_order.ts";
import { logConversationEvent } from "../../db/conversation_events.ts";
import { quotaMonth } from "../usage/quota_month.ts";
import { quotaExceeded, takeMessageQuota } from "../usage/take_message_quota.ts";
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
  /**
   * The client's idempotency key, stored with the message. A key already
   * stored in the workspace fails the write (`isVisitorKeyTaken`), nothing saved.
   */
  clientId?: string;
}

/** Messages before the visitor's, oldest first, that a reply takes as context. */
export const HISTORY_MESSAGES = 20;

export interface VisitorTurn {
  conversation: ConversationRow;
  visitorMessage: MessageRow;
  /** Up to HISTORY_MESSAGES messages before `visitorMessage`, oldest first. */
  history: MessageRow[];
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
  const isNew = input.conversationId === undefined;
  const result = isNew ? await firstTurn(deps, input, now) : await laterTurn(deps, input, now);
  await publishTurnEvents(deps, input, result, isNew);
  const aiShouldAnswer = aiMayAnswer(result.conversation);
  return {
    conversation: result.conversation,
    visitorMessage: result.visitorMessage,
    history: result.history,
    aiShouldAnswer,
    note: aiShouldAnswer ? null : HUMAN_OWNS_NOTE,
  };
}

/**
 * What a stored turn tells the rest of the system, in order, after its
 * commit: published together (one Redis round trip, not one per event).
 */
export async function publishTurnEvents(
  deps: AppDeps,
  input: Pick<VisitorTurnInput, "workspaceId" | "bot">,
  result: Pick<StoredTurn, "conversation" | "visitorMessage" | "reopened">,
  isNew: boolean,
): Promise<void> {
  const events: ParleyEvent[] = [];
  if (isNew) {
    events.push({
      type: "conversation.created",
      workspaceId: input.workspaceId,
      conversationId: result.conversation.public_id,
      chatbotId: input.bot.id,
    });
  } else if (result.reopened) {
    events.push(reopenedEvent(input.workspaceId, result.conversation.public_id));
  }
  events.push({
    type: "message.created",
    workspaceId: input.workspaceId,
    conversationId: result.conversation.public_id,
    messageId: result.visitorMessage.id,
    role: "visitor",
    content: result.visitorMessage.content,
    createdAt: result.visitorMessage.created_at.toISOString(),
  });
  await publishEvents(deps, events);
}

interface StoredTurn {
  conversation: ConversationRow;
  visitorMessage: MessageRow;
  history: MessageRow[];
  /** Whether the message reopened a closed conversation. */
  reopened: boolean;
}

/** A new conversation: quota, conversation and message in one statement; no history yet. */
async function firstTurn(deps: AppDeps, input: VisitorTurnInput, now: Date): Promise<StoredTurn> {
  const stored = await insertFirstTurn(deps.sql, input.workspaceId, firstTurnRow(input, now));
  if (!stored) throw quotaExceeded(now);
  return { ...stored, history: [], reopened: false };
}

/** What a first turn writes: the new conversation and its first message, this month's quota. */
export function firstTurnRow(
  input: Pick<
    VisitorTurnInput,
    "bot" | "visitorId" | "channel" | "meta" | "visitor" | "content" | "clientId"
  >,
  now: Date,
) {
  return {
    chatbotId: input.bot.id,
    visitorId: input.visitorId,
    channel: input.channel ?? "api",
    meta: input.meta ?? {},
    visitorName: input.visitor?.name || undefined,
    visitorEmail: input.visitor?.email || undefined,
    visitorPhone: input.visitor?.phone || undefined,
    content: input.content,
    clientId: input.clientId,
    month: quotaMonth(now),
    now,
  };
}

/** A message in an existing conversation: locked, reopened if closed, history read. */
async function laterTurn(deps: AppDeps, input: VisitorTurnInput, now: Date): Promise<StoredTurn> {
  // Only while a webhook recording of this conversation is in flight (a reopen goes after it).
  const recording = recordingsSettled(input.conversationId!);
  if (recording) await recording;
  return await deps.sql.begin(async (tx) => {
    let conversation = await continueConversation(tx, input, input.conversationId!);
    await takeMessageQuota(tx, input.workspaceId, now);
    const before = conversation.status;
    conversation = await applyTransition(tx, conversation, "visitorMessage", { now });
    const reopened = conversation.status !== before;
    if (reopened) {
      await logConversationEvent(tx, input.workspaceId, {
        conversationId: conversation.id,
        type: "reopened",
        source: "visitor",
        now,
      });
    }
    const visitorMessage = (await appendMessage(tx, input.workspaceId, {
      conversationId: conversation.id,
      role: "visitor",
      content: input.content,
      clientId: input.clientId,
      now,
    }))!;
    // After the message: the event's payload captures the conversation as this turn leaves it.
    if (reopened) {
      await recordInOutbox(tx, now, reopenedEvent(input.workspaceId, conversation.public_id));
    }
    const history = await recentMessages(
      tx,
      input.workspaceId,
      conversation.id,
      visitorMessage.id,
      HISTORY_MESSAGES,
    );
    return {
      conversation: { ...conversation, last_message_at: now },
      visitorMessage,
      history,
      reopened,
    };
  });
}

async function continueConversation(
  tx: Tx,
  input: VisitorTurnInput,
  conversationId: string,
): Promise<ConversationRow> {
  const visitor = {
    visitor_name: input.visitor?.name || undefined,
    visitor_email: input.visitor?.email || undefined,
    visitor_phone: input.visitor?.phone || undefined,
  };
  const found = await findConversationByPublicId(tx, input.workspaceId, conversationId, {
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

function reopenedEvent(workspaceId: number, conversationId: string): ParleyEvent {
  return { type: "conversation.updated", workspaceId, conversationId, reason: "reopen" };
}
