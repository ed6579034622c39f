/**
 * The provider's answer, started as soon as its prompt can be built and
 * consumed later. A widget visitor's first message in a new conversation
 * starts its draft beside the visitor-turn commit: the prompt needs the
 * knowledge, not the stored message, so the provider's first token is on its
 * way while the database commits (docs/BENCHMARKS.md, widget streaming).
 * Deltas that arrive before anyone listens wait in order; `meta` is still the
 * first event the visitor sees. A v1 message in a new conversation does the
 * same. A draft whose turn is refused is cancelled, and callers start one
 * only when no refusal is expected (`mayDraftEarly`, docs/answering.md).
 */
import type { ChatbotRow } from "../../db/chatbots.ts";
import type { MessageRow } from "../../db/messages.ts";
import type { RetrievedChunk } from "../knowledge/retrieve_chunks.ts";
import type { PreparedReply } from "./prepare_reply.ts";
import type { RecommendedProduct } from "../catalogue/recommend_products.ts";
import { BUDGET, buildPrompt, chunksWithinBudget } from "./build_prompt.ts";
import { type ChatResult, completeChat } from "./chat_completion.ts";

export interface DraftOutcome {
  result: ChatResult;
  /** The knowledge the prompt carried: the reply's sources. */
  used: RetrievedChunk[];
  /** The products the prompt named: shown after the reply. */
  products: RecommendedProduct[];
}

export interface ReplyDraft {
  /** Settles once the provider has finished (or failed, or was cancelled). */
  readonly done: Promise<DraftOutcome>;
  /**
   * Receive the deltas, the queued ones first; `signal` (the visitor leaving)
   * cancels the provider call. Only for a streamed draft, once.
   */
  listen(onDelta: (text: string) => void, signal?: AbortSignal): void;
  /** Abort the provider call: the turn was refused or nobody will read it. */
  cancel(): void;
}

/**
 * A reply is drafted before its turn is stored only for a new conversation
 * (no history, no human owner yet) and only while the quota is clearly not
 * the turn's obstacle: a refused turn must not make the workspace pay for a
 * provider call. A margin, not zero, because other messages may take the
 * last units meanwhile.
 */
const DRAFT_QUOTA_MARGIN = 5;

/**
 * Turns already being stored on this server beyond which a new one waits for
 * its commit before its provider call (conversations/turns_in_flight.ts says
 * why). 64 covers any ordinary concurrency, and turns queued behind that many
 * wait longer for the database than an early draft could hide.
 */
export const EARLY_DRAFTS_UP_TO_WAITING = 64;

/**
 * Whether a turn's provider call may start before the turn is stored.
 * `quotaHeadroom`: messages left this month (null: unlimited; absent: unknown).
 * `turnsWaiting`: turns this server is storing now, this one not counted.
 */
export function mayDraftEarly(
  turn: { conversationId?: string; quotaHeadroom?: number | null },
  turnsWaiting: number,
): boolean {
  return turnsWaiting < EARLY_DRAFTS_UP_TO_WAITING &&
    turn.conversationId === undefined && turn.quotaHeadroom !== undefined &&
    (turn.quotaHeadroom === null || turn.quotaHeadroom > DRAFT_QUOTA_MARGIN);
}

export function startReplyDraft(
  prepared: Promise<PreparedReply>,
  input: {
    bot: ChatbotRow;
    history: MessageRow[];
    question: string;
    stream: boolean;
    /** A suggestion for a human agent (see buildPrompt). */
    forAgent?: { draft?: string | null; profile?: string | null };
  },
): ReplyDraft {
  const ac = new AbortController();
  const queued: string[] = [];
  let listener: ((text: string) => void) | null = null;
  const onDelta = (text: string) => {
    if (listener) listener(text);
    else queued.push(text);
  };
  const done = (async (): Promise<DraftOutcome> => {
    const { provider, retrieved, products } = await prepared;
    ac.signal.throwIfAborted();
    const used = chunksWithinBudget(retrieved);
    const messages = buildPrompt({
      bot: input.bot,
      chunks: used,
      history: input.history,
      question: input.question,
      forAgent: input.forAgent,
      products,
    });
    const result = await completeChat(provider.client, input.bot.model, messages, {
      onDelta: input.stream ? onDelta : undefined,
      signal: ac.signal,
      maxTokens: BUDGET.reply,
      idleTimeoutMs: provider.timeoutMs,
    });
    return { result, used, products };
  })();
  // Whoever reads the draft sees its failure; a cancelled draft's is nobody's.
  done.catch(() => {});
  return {
    done,
    listen(fn, signal) {
      for (const text of queued.splice(0)) fn(text);
      listener = fn;
      if (!signal) return;
      if (signal.aborted) ac.abort(signal.reason);
      else signal.addEventListener("abort", () => ac.abort(signal.reason), { once: true });
    },
    cancel() {
      ac.abort();
    },
  };
}
