/**
 * The AI's answer to one visitor message: retrieve knowledge, build the
 * prompt, call the bot's provider (streamed when `onDelta` is given), and
 * store the assistant message with model, tokens, cost and sources. A
 * provider failure throws ProviderUnavailable and stores nothing more: the
 * visitor's message, stored by the turn, stays.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import type { ConversationRow } from "../../db/conversations.ts";
import {
  appendMessage,
  type MessageRow,
  type MessageSource,
  recentMessages,
  replyClientId,
} from "../../db/messages.ts";
import { Conflict } from "../errors.ts";
import { HISTORY_MESSAGES, HUMAN_OWNS_NOTE } from "../conversations/start_visitor_turn.ts";
import { type PreparedReply, startPreparingReply } from "./prepare_reply.ts";
import { type ReplyDraft, startReplyDraft } from "./reply_draft.ts";
import { costMicroCents } from "./pricing.ts";
import { publishEvent } from "../events.ts";
import type { RecommendedProduct } from "../catalogue/recommend_products.ts";

export interface ReplyInput {
  workspaceId: number;
  bot: ChatbotRow;
  conversation: ConversationRow;
  visitorMessage: MessageRow;
  /** The messages before it, oldest first, when the turn already read them. */
  history?: MessageRow[];
}

/** The visitor message's idempotency key, if it has one: the reply is stored once per key. */
function replyKeyOf(visitorMessage: MessageRow): string | null {
  return visitorMessage.client_id === null ? null : replyClientId(visitorMessage.client_id);
}

export interface Reply {
  message: MessageRow;
  sources: MessageSource[];
  tokensIn: number;
  tokensOut: number;
  model: string;
  /** Products the prompt named, for the widget to show (empty unless recommended). */
  products: RecommendedProduct[];
}

export async function generateReply(
  deps: AppDeps,
  input: ReplyInput,
  opts: {
    onDelta?: (text: string) => void;
    signal?: AbortSignal;
    /** Started beside the turn (see prepare_reply.ts); computed here when absent. */
    prepared?: Promise<PreparedReply>;
    /** The provider call itself, already under way (see reply_draft.ts). */
    draft?: ReplyDraft;
  } = {},
): Promise<Reply> {
  const { workspaceId, bot, conversation } = input;
  const draft = opts.draft ?? await startDraft(deps, input, opts);
  if (opts.onDelta) draft.listen(opts.onDelta, opts.signal);
  else if (opts.signal) opts.signal.addEventListener("abort", () => draft.cancel(), { once: true });
  const { result, used, products } = await draft.done;
  const sources = distinctSources(used);
  const now = deps.clock();
  // One statement: a human may have taken over while the provider was
  // thinking, and then they own the conversation and nothing is stored.
  const message = await appendMessage(deps.sql, workspaceId, {
    conversationId: conversation.id,
    role: "assistant",
    content: result.content,
    model: bot.model,
    tokensIn: result.tokensIn,
    tokensOut: result.tokensOut,
    costMicroCents: costMicroCents(bot.model, result.tokensIn, result.tokensOut),
    sources,
    clientId: replyKeyOf(input.visitorMessage),
    now,
  }, { onlyIfAiMayAnswer: true });
  if (!message) throw new Conflict(HUMAN_OWNS_NOTE);
  await publishEvent(deps, {
    type: "message.created",
    workspaceId,
    conversationId: conversation.public_id,
    messageId: message.id,
    role: "assistant",
    content: message.content,
    createdAt: message.created_at.toISOString(),
  });
  return {
    message,
    sources,
    tokensIn: result.tokensIn,
    tokensOut: result.tokensOut,
    model: bot.model,
    products,
  };
}

/** The provider call for a turn whose caller did not start one: groundwork and history first. */
async function startDraft(
  deps: AppDeps,
  input: ReplyInput,
  opts: { onDelta?: (text: string) => void; prepared?: Promise<PreparedReply> },
): Promise<ReplyDraft> {
  const { workspaceId, bot, conversation, visitorMessage } = input;
  const prepared = opts.prepared ??
    startPreparingReply(deps, { workspaceId, bot, query: visitorMessage.content });
  const history = input.history ??
    await recentMessages(
      deps.sql,
      workspaceId,
      conversation.id,
      visitorMessage.id,
      HISTORY_MESSAGES,
    );
  return startReplyDraft(prepared, {
    bot,
    history,
    question: visitorMessage.content,
    stream: opts.onDelta !== undefined,
  });
}

/** One citation per source document (or crawled page), in retrieval order. */
function distinctSources(chunks: { sourceTitle: string; url: string | null }[]): MessageSource[] {
  const seen = new Set<string>();
  const out: MessageSource[] = [];
  for (const c of chunks) {
    const key = `${c.sourceTitle}\u0000${c.url ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ title: c.sourceTitle, url: c.url });
  }
  return out;
}
