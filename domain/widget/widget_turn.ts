/**
 * The widget's message, retry-safe. The widget sends a `client_id` with every
 * message and the same one on a retry; a retry of a stored message streams
 * the stored message's reply (stored, awaited, or generated once) instead of
 * storing the message twice (replay_visitor_turn.ts). The key's lookup rides
 * in the bot's own query and the answering lock is taken beside it, so a
 * first attempt reaches its provider call with no extra round trip. Opening settles every refusal (plain JSON in the
 * door); `answer` then streams.
 */
import type { AppDeps } from "../deps.ts";
import { openSpan, tracingOn } from "../observability/tracing.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import type { ConversationRow } from "../../db/conversations.ts";
import type { MessageRow } from "../../db/messages.ts";
import { loadWidgetBotForReply } from "./load_widget_bot.ts";
import { knownBots } from "./known_bots.ts";
import { mayUseKnownBot, openKnownBotTurn } from "./known_bot_turn.ts";
import { firstSight } from "./first_sight.ts";
import {
  answerTurn,
  openStreamTurn,
  type StreamTurnInput,
  type TurnAnswer,
} from "./stream_turn.ts";
import { type AnsweringLock, NO_LOCK, takeAnsweringLock } from "../conversations/answering_lock.ts";
import {
  answerStoredTurn,
  findStoredTurn,
  type KeyedTurnRequest,
  writeOrReplay,
} from "../conversations/replay_visitor_turn.ts";

export interface WidgetTurnInput
  extends Omit<StreamTurnInput, "providerCiphertext" | "quotaHeadroom"> {
  botKey: string;
  /** The widget's idempotency key for this message. */
  clientId?: string;
}

export interface AnswerOptions {
  onDelta: (text: string) => void;
  signal: AbortSignal;
}

/** A stored (or found stored) visitor message, ready to be answered once. */
export interface OpenedWidgetTurn {
  bot: ChatbotRow;
  conversation: ConversationRow;
  visitorMessage: MessageRow;
  answer(opts: AnswerOptions): Promise<TurnAnswer>;
}

export function openWidgetTurn(
  deps: AppDeps,
  input: WidgetTurnInput,
): Promise<OpenedWidgetTurn> {
  return tracingOn ? tracedTurn(deps, input) : openTurn(deps, input);
}

/**
 * The turn as one span of the request's trace, from the key's lookup to the
 * reply stored: retrieval and the provider call, started while the visitor's
 * message is stored, are its children.
 */
async function tracedTurn(deps: AppDeps, input: WidgetTurnInput): Promise<OpenedWidgetTurn> {
  const span = openSpan("widget.turn", { "parley.channel": "widget" });
  try {
    const turn = await span.run(() => openTurn(deps, input));
    return {
      ...turn,
      answer: (opts) =>
        span.run(() => turn.answer(opts)).then((answer) => {
          span.end();
          return answer;
        }, (err) => {
          span.end(err);
          throw err;
        }),
    };
  } catch (err) {
    span.end(err);
    throw err;
  }
}

async function openTurn(
  deps: AppDeps,
  input: WidgetTurnInput,
): Promise<OpenedWidgetTurn> {
  const { clientId } = input;
  const lock = clientId ? takeAnsweringLock(deps.kv, input.botKey, clientId) : NO_LOCK;
  try {
    const kept = knownBots(deps);
    const known = mayUseKnownBot(input)
      ? kept.get(input.botKey, input.visitorId, performance.now())
      : undefined;
    // Marked for every keyed message, so that its retry is known as one.
    const sight = firstSight(deps.kv, input.botKey, clientId);
    if (known) {
      let opened: OpenedWidgetTurn | null = null;
      try {
        opened = await openKnownBotTurn(deps, known, input, lock, sight);
      } finally {
        // Refused or failed: the full way says why (or fails too), and reads the bot again.
        if (!opened) kept.forget(input.botKey);
      }
      if (opened) return opened;
    }
    const found = await loadWidgetBotForReply(
      deps.sql,
      input.botKey,
      deps.clock(),
      input.visitorId,
      clientId ?? null,
    );
    kept.remember(input.botKey, found, performance.now());
    const { bot } = found;
    const keyed: KeyedTurnRequest = {
      workspaceId: bot.workspace_id,
      bot,
      visitorId: input.visitorId,
      conversationId: input.conversationId,
      content: input.message,
      clientId: clientId!,
    };
    return await writeOrReplay(
      deps,
      { workspaceId: bot.workspace_id, clientId, replayMessageId: found.replayMessageId },
      lock,
      async (): Promise<OpenedWidgetTurn> => {
        const turn = await openStreamTurn(deps, bot, { ...input, ...found });
        return {
          bot,
          conversation: turn.conversation,
          visitorMessage: turn.visitorMessage,
          answer: (opts) => answerTurn(deps, bot, turn, opts).finally(() => lock.release()),
        };
      },
      (mayAnswer) => replayed(deps, keyed, lock, mayAnswer),
    );
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function replayed(
  deps: AppDeps,
  req: KeyedTurnRequest,
  lock: AnsweringLock,
  mayAnswer: boolean,
): Promise<OpenedWidgetTurn> {
  const stored = await findStoredTurn(deps, req);
  return {
    bot: req.bot,
    ...stored,
    answer: async (opts) => {
      try {
        const answer = await answerStoredTurn(deps, req.bot, stored, lock, { mayAnswer, ...opts });
        return answer.source === "ai"
          ? {
            source: "ai",
            messageId: answer.reply.message.id,
            sources: answer.reply.sources,
            // A replayed reply is the stored message; products shown with it were not stored.
            products: [],
          }
          : { source: "human", note: answer.note };
      } finally {
        lock.release();
      }
    },
  };
}
