/**
 * A widget message in two steps, so the SSE door can answer plain JSON for
 * every refusal and stream only once the visitor message is safely stored:
 * `openStreamTurn` (identity, ownership, quota, storage) then `answerTurn`
 * (the AI reply, streamed through `onDelta`, or silence while a human owns it).
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import type { MessageSource } from "../../db/messages.ts";
import { findWorkspace } from "../../db/workspaces.ts";
import { generateReply } from "../ai/generate_reply.ts";
import { type PreparedReply, startPreparingReply } from "../ai/prepare_reply.ts";
import { mayDraftEarly, type ReplyDraft, startReplyDraft } from "../ai/reply_draft.ts";
import {
  HUMAN_OWNS_NOTE,
  startVisitorTurn,
  type VisitorTurn,
} from "../conversations/start_visitor_turn.ts";
import { Conflict, ProviderUnavailable } from "../errors.ts";
import { escalateAiFailure } from "../conversations/escalate_ai_failure.ts";
import { turnsInFlight } from "../conversations/turns_in_flight.ts";
import { verifyIdentity } from "./verify_identity.ts";
import { openIdentitySecret } from "../auth/identity_secret.ts";
import type { RecommendedProduct } from "../catalogue/recommend_products.ts";
import { insertImpressions } from "../../db/product_recommendations.ts";

export interface StreamTurnInput {
  visitorId: string;
  message: string;
  conversationId?: string;
  meta?: Record<string, unknown>;
  /** Name, e-mail and phone from the pre-chat form: the visitor's own, unverified claim. */
  visitor?: { name?: string; email?: string; phone?: string };
  identity?: string;
  /** The workspace's stored key for the bot's provider, read with the bot (null: none). */
  providerCiphertext?: string | null;
  /** Messages left this month, read with the bot (null: unlimited; absent: unknown). */
  quotaHeadroom?: number | null;
  /** The widget's idempotency key for this message (widget_turn.ts). */
  clientId?: string;

  /** The bot's knowledge generation, read with the bot (lets retrieval reuse a result). */
  knowledgeGeneration?: number | null;
}

/**
 * Verify the identity token, then store the visitor message; the reply's
 * groundwork (and, for a new conversation, the provider call) runs beside it.
 */
export async function openStreamTurn(
  deps: AppDeps,
  bot: ChatbotRow,
  input: StreamTurnInput,
): Promise<StreamTurn> {
  let visitor = input.visitor;
  const meta = storableMeta(input.meta);
  if (input.identity !== undefined) {
    const workspace = await findWorkspace(deps.sql, bot.workspace_id);
    const who = await verifyIdentity(
      input.identity,
      await openIdentitySecret(deps.appKey, workspace),
      deps.clock(),
    );
    visitor = {
      name: who.name ?? visitor?.name,
      email: who.email ?? visitor?.email,
      phone: who.phone ?? visitor?.phone,
    };
    meta.identity = { sub: who.sub, verified: true };
  }
  // Identity is settled: the reply's groundwork can run beside the turn's commit.
  const prepared = startPreparingReply(deps, {
    workspaceId: bot.workspace_id,
    bot,
    query: input.message,
    providerCiphertext: input.providerCiphertext,
    recommend: true,

    knowledgeGeneration: input.knowledgeGeneration,
  });
  // A new conversation has no history and no human owner yet: the provider
  // call can start now, its deltas held until the turn is stored.
  const inFlight = turnsInFlight(deps);
  const draft = mayDraftEarly(input, inFlight.waiting)
    ? startReplyDraft(prepared, { bot, history: [], question: input.message, stream: true })
    : undefined;
  let turn: VisitorTurn;
  try {
    turn = await inFlight.track(startVisitorTurn(deps, {
      workspaceId: bot.workspace_id,
      bot,
      visitorId: input.visitorId,
      conversationId: input.conversationId,
      content: input.message,
      meta: Object.keys(meta).length ? meta : undefined,
      visitor,
      channel: "widget",
      requireVisitorMatch: true,
      clientId: input.clientId,
    }));
  } catch (err) {
    draft?.cancel();
    throw err;
  }
  if (!turn.aiShouldAnswer) draft?.cancel();
  return { ...turn, prepared, draft };
}

/** The page context the widget sent, as stored: without what only the server may say. */
export function storableMeta(sent: Record<string, unknown> | undefined): Record<string, unknown> {
  const meta: Record<string, unknown> = { ...(sent ?? {}) };
  // Only the server sets `identity`: a client-sent one is never trusted.
  delete meta.identity;
  delete meta.visitor;
  return meta;
}

/** A stored visitor turn, with the reply's groundwork (or the provider call) under way. */
export interface StreamTurn extends VisitorTurn {
  prepared: Promise<PreparedReply>;
  draft?: ReplyDraft;
}

export type TurnAnswer =
  | {
    source: "ai";
    messageId: number;
    sources: MessageSource[];
    /** Shown after the last delta as the `recommendations` event (none: not sent). */
    products: RecommendedProduct[];
  }
  | { source: "human"; note: string };

/**
 * The AI's reply to a stored turn. A human who took over while the provider
 * was answering wins: nothing is stored and the answer says a human owns it.
 */
export async function answerTurn(
  deps: AppDeps,
  bot: ChatbotRow,
  turn: StreamTurn,
  opts: { onDelta: (text: string) => void; signal: AbortSignal },
): Promise<TurnAnswer> {
  if (!turn.aiShouldAnswer) return { source: "human", note: turn.note ?? HUMAN_OWNS_NOTE };
  try {
    const reply = await generateReply(deps, {
      workspaceId: bot.workspace_id,
      bot,
      conversation: turn.conversation,
      visitorMessage: turn.visitorMessage,
      history: turn.history,
    }, { ...opts, prepared: turn.prepared, draft: turn.draft });
    // Counted as shown before the stream sends them (portal analytics).
    await insertImpressions(deps.sql, bot.workspace_id, {
      chatbotId: bot.id,
      conversationId: turn.conversation.id,
      messageId: reply.message.id,
      productIds: reply.products.map((p) => p.id),
    });
    return {
      source: "ai",
      messageId: reply.message.id,
      sources: reply.sources,
      products: reply.products,
    };
  } catch (err) {
    if (err instanceof Conflict) return { source: "human", note: HUMAN_OWNS_NOTE };
    if (err instanceof ProviderUnavailable) {
      // The visitor gets the error now; agents are called in beside it.
      void escalateAiFailure(deps, {
        workspaceId: bot.workspace_id,
        chatbotId: bot.id,
        conversationId: turn.conversation.public_id,
        cause: err.message,
      });
    }
    throw err;
  }
}
