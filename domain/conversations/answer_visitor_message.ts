/**
 * The whole v1 exchange in one call: store the visitor's turn, then (unless a
 * human owns the conversation) the AI's reply. A provider failure surfaces as
 * ProviderUnavailable (502) after the visitor message is safely stored.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { type ConversationRow, findConversationById } from "../../db/conversations.ts";
import { Conflict, Invalid, ProviderUnavailable } from "../errors.ts";
import { escalateAiFailure } from "./escalate_ai_failure.ts";
import { generateReply, type Reply } from "../ai/generate_reply.ts";
import { startPreparingReply } from "../ai/prepare_reply.ts";
import { mayDraftEarly, startReplyDraft } from "../ai/reply_draft.ts";
import { HUMAN_OWNS_NOTE, startVisitorTurn, type VisitorTurn } from "./start_visitor_turn.ts";
import { turnsInFlight } from "./turns_in_flight.ts";

export interface AnsweredMessage {
  conversation: ConversationRow;
  reply: Reply | null;
  note: string | null;
}

export async function answerVisitorMessage(
  deps: AppDeps,
  input: {
    workspaceId: number;
    bot: ChatbotRow;
    visitorId: string;
    conversationId?: string;
    content: string;
    meta?: Record<string, unknown>;
    /** Read with the bot (see getChatbotForReply); looked up or not used when absent. */
    providerCiphertext?: string | null;
    quotaHeadroom?: number | null;
    /** The client's idempotency key, stored with the message (send_visitor_message.ts). */
    clientId?: string;

    /** The bot's knowledge generation, read with the bot (lets retrieval reuse a result). */
    knowledgeGeneration?: number | null;
  },
): Promise<AnsweredMessage> {
  if (!input.bot.is_active) {
    throw new Invalid("The chatbot is not active.", { key: ["The chatbot is not active."] });
  }
  // The reply's groundwork runs beside the turn's commit (prepare_reply.ts).
  const prepared = startPreparingReply(deps, {
    workspaceId: input.workspaceId,
    bot: input.bot,
    query: input.content,
    providerCiphertext: input.providerCiphertext,
    knowledgeGeneration: input.knowledgeGeneration,
  });
  // A new conversation's provider call starts beside its turn (reply_draft.ts).
  const inFlight = turnsInFlight(deps);
  const draft = mayDraftEarly(input, inFlight.waiting)
    ? startReplyDraft(prepared, {
      bot: input.bot,
      history: [],
      question: input.content,
      stream: false,
    })
    : undefined;
  let turn: VisitorTurn;
  try {
    turn = await inFlight.track(startVisitorTurn(deps, { ...input, channel: "api" }));
  } catch (err) {
    draft?.cancel();
    throw err;
  }
  if (!turn.aiShouldAnswer) {
    draft?.cancel();
    return { conversation: turn.conversation, reply: null, note: turn.note };
  }
  try {
    const reply = await generateReply(deps, {
      workspaceId: input.workspaceId,
      bot: input.bot,
      conversation: turn.conversation,
      visitorMessage: turn.visitorMessage,
      history: turn.history,
    }, { prepared, draft });
    return { conversation: turn.conversation, reply, note: null };
  } catch (err) {
    // A human took over while the AI was thinking: their answer wins, and the
    // response shows the conversation as it is now (status `agent`), not as it was.
    if (err instanceof Conflict) {
      const current = await findConversationById(deps.sql, input.workspaceId, turn.conversation.id);
      return { conversation: current ?? turn.conversation, reply: null, note: HUMAN_OWNS_NOTE };
    }
    // The visitor message is stored: name its conversation, so a client that
    // started a new one can retry in it instead of opening another.
    if (err instanceof ProviderUnavailable) {
      await escalateAiFailure(deps, {
        workspaceId: input.workspaceId,
        chatbotId: input.bot.id,
        conversationId: turn.conversation.public_id,
        cause: err.message,
      });
      deps.log.warn("AI reply failed", {
        bot: input.bot.public_key,
        kind: err.kind,
        cause: err.message,
      });
      throw new ProviderUnavailable(err.message, err.kind, {
        conversation_id: turn.conversation.public_id,
      });
    }
    throw err;
  }
}
