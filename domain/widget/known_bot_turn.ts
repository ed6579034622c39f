/**
 * A visitor's first message to a bot this instance already knows
 * (known_bots.ts): the reply's groundwork and the provider call start at
 * once, from the kept copy, while one statement checks the bot and stores the
 * turn (db/first_turn.ts `insertKnownBotFirstTurn`). The bot lookup no longer
 * stands between the request and the provider, nor between the request and
 * the commit `meta` waits for (docs/BENCHMARKS.md, issue 25).
 *
 * Null sends the caller the full way (widget_turn.ts), which then says why:
 * the message's key was seen before (a retry: first_sight.ts), another
 * request holds its answering lock, or the statement refused (key unknown or
 * inactive, workspace suspended, visitor blocked, quota, the key already
 * stored). Nothing was written then, and a provider call started here is
 * cancelled.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { findActiveChatbotForReply } from "../../db/chatbots.ts";
import { insertKnownBotFirstTurn } from "../../db/first_turn.ts";
import { isVisitorKeyTaken } from "../../db/messages.ts";
import { startPreparingReply } from "../ai/prepare_reply.ts";
import { mayDraftEarly, type ReplyDraft, startReplyDraft } from "../ai/reply_draft.ts";
import {
  firstTurnRow,
  HUMAN_OWNS_NOTE,
  publishTurnEvents,
} from "../conversations/start_visitor_turn.ts";
import { aiMayAnswer } from "../conversations/state_machine.ts";
import { turnsInFlight } from "../conversations/turns_in_flight.ts";
import type { AnsweringLock } from "../conversations/answering_lock.ts";
import { quotaMonth } from "../usage/quota_month.ts";
import { type KnownBot, knownBots } from "./known_bots.ts";
import { answerTurn, storableMeta, type StreamTurn } from "./stream_turn.ts";
import type { OpenedWidgetTurn, WidgetTurnInput } from "./widget_turn.ts";

/** Only a new conversation without an identity token: every other turn reads first. */
export function mayUseKnownBot(input: WidgetTurnInput): boolean {
  return input.conversationId === undefined && input.identity === undefined;
}

export async function openKnownBotTurn(
  deps: AppDeps,
  known: KnownBot,
  input: WidgetTurnInput,
  lock: AnsweringLock,
  /** Whether the message's idempotency key is new (first_sight.ts). */
  sight: Promise<boolean>,
): Promise<OpenedWidgetTurn | null> {
  let bot: ChatbotRow = known.bot;
  let prepared = startPreparingReply(deps, {
    workspaceId: bot.workspace_id,
    bot,
    query: input.message,
    providerCiphertext: known.providerCiphertext,
    recommend: true,
    knowledgeGeneration: known.knowledgeGeneration,
  });
  // The one who stores a keyed message answers it, and a retry is answered
  // from what is stored: without the lock, or for a key seen before, the full way decides.
  const [held, first] = await Promise.all([lock.held, sight]);
  if (!held || !first) return null;
  const inFlight = turnsInFlight(deps);
  let draft: ReplyDraft | undefined =
    mayDraftEarly({ quotaHeadroom: known.quotaHeadroom }, inFlight.waiting)
      ? startReplyDraft(prepared, { bot, history: [], question: input.message, stream: true })
      : undefined;
  const now = deps.clock();
  let stored;
  try {
    stored = await inFlight.track(insertKnownBotFirstTurn(deps.db.turnSql, bot.workspace_id, {
      publicKey: input.botKey,
      ...firstTurnRow({
        bot,
        visitorId: input.visitorId,
        channel: "widget",
        meta: storableMeta(input.meta),
        visitor: input.visitor,
        content: input.message,
        clientId: input.clientId,
      }, now),
    }));
  } catch (err) {
    draft?.cancel();
    if (isVisitorKeyTaken(err)) return null; // stored meanwhile by a retry: the full way replays
    throw err;
  }
  if (!stored) {
    draft?.cancel();
    return null;
  }
  const kept = knownBots(deps);
  kept.noteHeadroom(input.botKey, stored.quotaHeadroom);
  if (stored.replyVersion !== known.replyVersion) {
    // The bot, its key or its knowledge changed since the copy was read: what
    // was drafted from it is dropped, and the reply starts again from the bot as it is.
    draft?.cancel();
    draft = undefined;
    const fresh = await findActiveChatbotForReply(
      deps.sql,
      input.botKey,
      quotaMonth(now),
      input.visitorId,
    );
    if (fresh) {
      kept.remember(input.botKey, fresh, performance.now());
      bot = fresh.bot;
    } else {
      kept.forget(input.botKey);
    }
    prepared = startPreparingReply(deps, {
      workspaceId: bot.workspace_id,
      bot,
      query: input.message,
      providerCiphertext: fresh?.providerCiphertext,
      recommend: true,
      knowledgeGeneration: fresh?.knowledgeGeneration,
    });
  }
  const { conversation, visitorMessage } = stored;
  await publishTurnEvents(deps, { workspaceId: bot.workspace_id, bot }, {
    conversation,
    visitorMessage,
    reopened: false,
  }, true);
  const aiShouldAnswer = aiMayAnswer(conversation);
  if (!aiShouldAnswer) draft?.cancel();
  const turn: StreamTurn = {
    conversation,
    visitorMessage,
    history: [],
    aiShouldAnswer,
    note: aiShouldAnswer ? null : HUMAN_OWNS_NOTE,
    prepared,
    draft,
  };
  const answeringBot = bot;
  return {
    bot,
    conversation,
    visitorMessage,
    answer: (opts) => answerTurn(deps, answeringBot, turn, opts).finally(() => lock.release()),
  };
}
