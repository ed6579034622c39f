/**
 * A retried visitor message (v1 or widget) whose idempotency key is already
 * stored: the answer is the stored message and its stored AI reply, never a
 * second message or a second provider call (docs/errors.md, retrying safely).
 * A key stored for a different request (another bot, visitor, conversation
 * or text) is refused with 422, like a reused key on the best payment APIs.
 * A reply not stored yet is awaited while the first request still holds the
 * answering lock; once that request is gone without one (its provider call
 * failed, or its instance died and its lock lapsed, within ANSWERING_TTL_MS)
 * the retry answers the stored message itself.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { type ConversationRow, findConversationById } from "../../db/conversations.ts";
import {
  findMessageByClientId,
  findVisitorMessageByKey,
  isVisitorKeyTaken,
  type MessageRow,
  replyClientId,
} from "../../db/messages.ts";
import { Conflict, Invalid, StillAnswering } from "../errors.ts";
import { generateReply, type Reply } from "../ai/generate_reply.ts";
import type { AnsweringLock } from "./answering_lock.ts";
import { HUMAN_OWNS_NOTE } from "./start_visitor_turn.ts";
import { aiMayAnswer } from "./state_machine.ts";

/**
 * How long a retry waits for a first request that is still at work (it keeps
 * renewing its lock) before answering 409; a dead one's lock lapses far sooner.
 */
export const REPLAY_WAIT_MS = 30_000;
const POLL_MS = 250;

export const KEY_REUSED =
  "The client id field was already used for a different message; send a new one for a new message.";
export const STILL_ANSWERING =
  "A request with this client id is still in progress; retry shortly with the same client id.";

export interface KeyedTurnRequest {
  workspaceId: number;
  bot: ChatbotRow;
  visitorId: string;
  conversationId?: string;
  content: string;
  clientId: string;
}

export interface StoredTurn {
  conversation: ConversationRow;
  visitorMessage: MessageRow;
}

/** The stored turn a retry names, checked to be the same request (Invalid otherwise). */
export async function findStoredTurn(deps: AppDeps, req: KeyedTurnRequest): Promise<StoredTurn> {
  const visitorMessage = await findVisitorMessageByKey(deps.sql, req.workspaceId, req.clientId);
  const conversation = visitorMessage &&
    await findConversationById(deps.sql, req.workspaceId, visitorMessage.conversation_id);
  if (
    !visitorMessage || !conversation || conversation.chatbot_id !== req.bot.id ||
    conversation.visitor_id !== req.visitorId || visitorMessage.content !== req.content ||
    (req.conversationId !== undefined && req.conversationId !== conversation.public_id)
  ) {
    throw new Invalid(KEY_REUSED, { client_id: [KEY_REUSED] });
  }
  return { conversation, visitorMessage };
}

/**
 * Whether this request writes the keyed message or replays it. Only the
 * holder of the answering lock writes (and may start its provider call
 * early); a concurrent duplicate waits until the holder has stored the
 * message (then replays it) or gave the lock back without storing it (a
 * refusal such as a quota 429: then this request writes). Bounded by
 * REPLAY_WAIT_MS, then 409.
 */
export async function claimKeyedTurn(
  deps: AppDeps,
  workspaceId: number,
  clientId: string,
  lock: AnsweringLock,
): Promise<"write" | "replay"> {
  if (await lock.held) return "write";
  const deadline = performance.now() + REPLAY_WAIT_MS;
  for (;;) {
    if (await findVisitorMessageByKey(deps.sql, workspaceId, clientId)) return "replay";
    if (await lock.retake()) return "write";
    if (performance.now() > deadline) throw new StillAnswering(STILL_ANSWERING);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * The one decision for a keyed visitor message, on v1 and on the widget:
 * replay it when the key is already stored (`replayMessageId`, read with the
 * bot) or a concurrent holder of the key stores it; otherwise `write` it. A
 * write that still meets the key (the lock could not be kept: Redis
 * unreachable) replays too, waiting for the other's reply, never answering twice.
 */
export async function writeOrReplay<T>(
  deps: AppDeps,
  key: { workspaceId: number; clientId?: string; replayMessageId: number | null },
  lock: AnsweringLock,
  write: () => Promise<T>,
  replay: (mayAnswer: boolean) => Promise<T>,
): Promise<T> {
  if (key.replayMessageId !== null) return await replay(true);
  if (
    key.clientId && await claimKeyedTurn(deps, key.workspaceId, key.clientId, lock) === "replay"
  ) {
    return await replay(true);
  }
  try {
    return await write();
  } catch (err) {
    if (!isVisitorKeyTaken(err)) throw err;
    return await replay(false);
  }
}

export type StoredAnswer =
  | { source: "ai"; reply: Reply; conversation: ConversationRow }
  | { source: "human"; note: string; conversation: ConversationRow };

/**
 * The reply to a stored turn: stored, awaited, or (when `mayAnswer` and
 * nobody else is answering) generated now. Its text goes to `onDelta`,
 * streamed when generated, in one piece when it was stored.
 */
export async function answerStoredTurn(
  deps: AppDeps,
  bot: ChatbotRow,
  stored: StoredTurn,
  lock: AnsweringLock,
  opts: { mayAnswer: boolean; onDelta?: (text: string) => void; signal?: AbortSignal },
): Promise<StoredAnswer> {
  const workspaceId = bot.workspace_id;
  const key = replyClientId(stored.visitorMessage.client_id!);
  const deadline = performance.now() + REPLAY_WAIT_MS;
  let held = opts.mayAnswer && await lock.held;
  for (;;) {
    const message = await findMessageByClientId(deps.sql, workspaceId, stored.conversation.id, key);
    const conversation =
      await findConversationById(deps.sql, workspaceId, stored.conversation.id) ??
        stored.conversation;
    if (message) {
      opts.onDelta?.(message.content);
      return { source: "ai", reply: storedReply(bot, message), conversation };
    }
    if (!aiMayAnswer(conversation)) {
      return { source: "human", note: HUMAN_OWNS_NOTE, conversation };
    }
    if (held) {
      const reply = await answerNow(deps, bot, { ...stored, conversation }, opts);
      if (reply) return { source: "ai", reply, conversation };
      held = false; // someone stored it meanwhile: read it on the next round
    } else if (performance.now() > deadline || opts.signal?.aborted) {
      throw new StillAnswering(STILL_ANSWERING);
    } else {
      await new Promise((r) => setTimeout(r, POLL_MS));
      if (opts.mayAnswer) held = await lock.retake();
    }
  }
}

/** Generate the reply now; null when another request stored it first or a human took over. */
async function answerNow(
  deps: AppDeps,
  bot: ChatbotRow,
  stored: StoredTurn,
  opts: { onDelta?: (text: string) => void; signal?: AbortSignal },
): Promise<Reply | null> {
  try {
    return await generateReply(deps, {
      workspaceId: bot.workspace_id,
      bot,
      conversation: stored.conversation,
      visitorMessage: stored.visitorMessage,
    }, opts);
  } catch (err) {
    if (err instanceof Conflict || (err as { code?: unknown }).code === "23505") return null;
    throw err;
  }
}

function storedReply(bot: ChatbotRow, message: MessageRow): Reply {
  return {
    message,
    sources: message.sources,
    tokensIn: message.tokens_in,
    tokensOut: message.tokens_out,
    model: message.model ?? bot.model,
    products: [], // products shown with a reply are not stored on it
  };
}
