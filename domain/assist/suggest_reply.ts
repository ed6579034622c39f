/**
 * A reply drafted for the agent from the bot's knowledge and the
 * conversation, through the very retrieval, prompt and provider code that
 * answers visitors (prepare_reply.ts, reply_draft.ts), with the agent's draft
 * improved when given. Stored with its tokens and cost; its id is kept by the
 * app to report the outcome. Nothing to answer (no visitor message since the
 * last agent reply) or no provider key (none stored, no AI_API_KEY, no
 * AI_BASE_URL): `suggestion` is null and no provider call is made.
 */
import type { AppDeps } from "../deps.ts";
import { insertAssistCall } from "../../db/ai_assist_calls.ts";
import type { MessageRow } from "../../db/messages.ts";
import { startPreparingReply } from "../ai/prepare_reply.ts";
import { findProviderClient } from "../ai/provider_client.ts";
import { startReplyDraft } from "../ai/reply_draft.ts";
import { costMicroCents } from "../ai/pricing.ts";
import { HISTORY_MESSAGES } from "../conversations/start_visitor_turn.ts";
import { loadCopilotTarget } from "./assist_target.ts";
import { brandingOf } from "../chatbots/branding.ts";
import { visitorProfile } from "./visitor_profile.ts";

export interface SuggestInput {
  workspaceId: number;
  userId: number;
  conversationId: string;
  draft?: string | null;
}

export async function suggestReply(
  deps: AppDeps,
  input: SuggestInput,
): Promise<{ id: number; suggestion: string | null }> {
  const now = deps.clock();
  const target = await loadCopilotTarget(deps, input.workspaceId, input.conversationId, now);
  const { bot, conversation } = target;
  const draft = input.draft?.trim() ? input.draft : null;
  const question = unansweredVisitorMessage(target.messages);
  const record = (content: string | null, usage = { tokensIn: 0, tokensOut: 0 }) =>
    insertAssistCall(deps.sql, input.workspaceId, {
      chatbotId: bot.id,
      conversationId: conversation.id,
      userId: input.userId,
      kind: "suggestion",
      draft,
      content,
      model: content === null ? null : bot.model,
      tokensIn: usage.tokensIn,
      tokensOut: usage.tokensOut,
      costMicroCents: content === null
        ? 0
        : costMicroCents(bot.model, usage.tokensIn, usage.tokensOut),
      now,
    });
  // "No key" as the visitors' answers see it: no stored key, no AI_API_KEY, no AI_BASE_URL.
  const client = question
    ? await findProviderClient(deps, input.workspaceId, bot.provider, target.providerCiphertext)
    : null;
  if (!question || !client) {
    return { id: (await record(null)).id, suggestion: null };
  }
  const before = target.messages.filter((m) => m.id < question.id).slice(-HISTORY_MESSAGES);
  const prepared = startPreparingReply(deps, {
    workspaceId: input.workspaceId,
    bot,
    query: question.content,
    providerCiphertext: target.providerCiphertext,
  });
  // copilot_use_profile: what is known of the visitor joins the prompt (never otherwise).
  const profile = brandingOf(bot.branding).copilot_use_profile
    ? await visitorProfile(deps, input.workspaceId, conversation)
    : null;
  const { result } = await startReplyDraft(prepared, {
    bot,
    history: before,
    question: question.content,
    stream: false,
    forAgent: { draft, profile },
  }).done;
  const suggestion = result.content.trim();
  const { id } = await record(suggestion, result);
  return { id, suggestion };
}

/** The newest visitor message, unless an agent has replied since. */
function unansweredVisitorMessage(messages: MessageRow[]): MessageRow | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "agent") return null;
    if (m.role === "visitor") return m;
  }
  return null;
}
