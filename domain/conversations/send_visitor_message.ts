/**
 * A v1 visitor message, retry-safe: with an idempotency key (`client_id` or
 * the Idempotency-Key header) a message already stored under it is answered
 * with the stored message's conversation and its stored reply
 * (replay_visitor_turn.ts) instead of a second message and a second AI call.
 * The key's lookup rides in the bot's own query, so a first attempt pays
 * nothing more than the key's column.
 */
import type { AppDeps } from "../deps.ts";
import { getChatbotForReply } from "../chatbots/get_chatbot.ts";
import { ProviderUnavailable } from "../errors.ts";
import { type AnsweredMessage, answerVisitorMessage } from "./answer_visitor_message.ts";
import { type AnsweringLock, NO_LOCK, takeAnsweringLock } from "./answering_lock.ts";
import {
  answerStoredTurn,
  findStoredTurn,
  type KeyedTurnRequest,
  writeOrReplay,
} from "./replay_visitor_turn.ts";

export interface VisitorMessageInput {
  workspaceId: number;
  botKey: string;
  visitorId: string;
  conversationId?: string;
  content: string;
  meta?: Record<string, unknown>;
  clientId?: string;
}

export async function sendVisitorMessage(
  deps: AppDeps,
  input: VisitorMessageInput,
): Promise<AnsweredMessage> {
  const { clientId } = input;
  const lock = clientId ? takeAnsweringLock(deps.kv, input.botKey, clientId) : NO_LOCK;
  try {
    const found = await getChatbotForReply(
      deps.sql,
      input.workspaceId,
      input.botKey,
      deps.clock(),
      clientId ?? null,
    );
    const keyed: KeyedTurnRequest = { ...input, bot: found.bot, clientId: clientId! };
    return await writeOrReplay(
      deps,
      { workspaceId: input.workspaceId, clientId, replayMessageId: found.replayMessageId },
      lock,
      () => answerVisitorMessage(deps, { ...input, ...found }),
      (mayAnswer) => replay(deps, keyed, lock, mayAnswer),
    );
  } finally {
    lock.release();
  }
}

async function replay(
  deps: AppDeps,
  req: KeyedTurnRequest,
  lock: AnsweringLock,
  mayAnswer: boolean,
): Promise<AnsweredMessage> {
  const stored = await findStoredTurn(deps, req);
  let answer;
  try {
    answer = await answerStoredTurn(deps, req.bot, stored, lock, { mayAnswer });
  } catch (err) {
    // As on a first attempt: name the conversation that keeps the message.
    if (!(err instanceof ProviderUnavailable)) throw err;
    throw new ProviderUnavailable(err.message, err.kind, {
      conversation_id: stored.conversation.public_id,
    });
  }
  return answer.source === "ai"
    ? { conversation: answer.conversation, reply: answer.reply, note: null }
    : { conversation: answer.conversation, reply: null, note: answer.note };
}
