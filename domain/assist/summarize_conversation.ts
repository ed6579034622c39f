/**
 * A summary of the conversation for the agent, with the visitor's intent and
 * catalogue tags that fit, from one structured-output provider call (see
 * summary_prompt.ts). Stored on the conversation (the inbox's `active`
 * shows it) and counted with its tokens and cost. Nothing to summarise, no
 * provider key, a failing provider or an unusable answer: 422, "could not be
 * generated now", and nothing stored.
 */
import type { AppDeps } from "../deps.ts";
import { insertAssistCall } from "../../db/ai_assist_calls.ts";
import { setConversationSummary } from "../../db/conversation_assist.ts";
import { listTags } from "../../db/tags.ts";
import { prepareReply } from "../ai/prepare_reply.ts";
import { findProviderClient } from "../ai/provider_client.ts";
import { completeChat } from "../ai/chat_completion.ts";
import { costMicroCents } from "../ai/pricing.ts";
import { Invalid, ProviderUnavailable } from "../errors.ts";
import { publishEvent } from "../events.ts";
import { loadAssistTarget, loadCopilotTarget } from "./assist_target.ts";
import {
  readSummaryAnswer,
  SUMMARY_MAX_TOKENS,
  summaryFormat,
  summaryPrompt,
  type TagSuggestion,
} from "./summary_prompt.ts";

export interface SummaryResult {
  summary: string;
  summary_at: string;
  intent: string | null;
  tag_suggestions: TagSuggestion[];
}

const notNow = (reason: string) =>
  new Invalid(`The summary could not be generated now: ${reason}`, { summary: [reason] });

export async function summarizeConversation(
  deps: AppDeps,
  input: { workspaceId: number; userId: number; conversationId: string },
  /** `auto_actions` on resolve: the service's own summary, whatever the copilot flag says. */
  opts: { automatic?: boolean } = {},
): Promise<SummaryResult> {
  const now = deps.clock();
  const load = opts.automatic ? loadAssistTarget : loadCopilotTarget;
  const target = await load(deps, input.workspaceId, input.conversationId, now);
  const { bot, conversation, messages } = target;
  const visitorText = messages.filter((m) => m.role === "visitor").slice(-3)
    .map((m) => m.content).join("\n");
  if (!visitorText) throw notNow("the visitor has not written anything yet.");
  const keyed = await findProviderClient(
    deps,
    input.workspaceId,
    bot.provider,
    target.providerCiphertext,
  );
  if (!keyed) throw notNow("no API key is configured for the bot's AI provider.");
  const tags = await listTags(deps.sql, input.workspaceId);
  let content: string, tokensIn: number, tokensOut: number;
  try {
    const prepared = await prepareReply(deps, {
      workspaceId: input.workspaceId,
      bot,
      query: visitorText,
      providerCiphertext: target.providerCiphertext,
    });
    ({ content, tokensIn, tokensOut } = await completeChat(
      prepared.provider.client,
      bot.model,
      summaryPrompt({ bot, messages, tags, chunks: prepared.retrieved }),
      { responseFormat: summaryFormat(tags), maxTokens: SUMMARY_MAX_TOKENS, temperature: 0 },
    ));
  } catch (err) {
    if (err instanceof ProviderUnavailable) throw notNow(err.message);
    throw err;
  }
  const answer = readSummaryAnswer(content, tags);
  if (!answer) throw notNow("the AI provider's answer was not a usable summary.");
  await deps.sql.begin(async (tx) => {
    await setConversationSummary(tx, input.workspaceId, conversation.id, {
      summary: answer.summary,
      intent: answer.intent,
      tagSuggestions: answer.tagSuggestions,
      at: now,
    });
    await insertAssistCall(tx, input.workspaceId, {
      chatbotId: bot.id,
      conversationId: conversation.id,
      userId: input.userId,
      kind: "summary",
      content: answer.summary,
      model: bot.model,
      tokensIn,
      tokensOut,
      costMicroCents: costMicroCents(bot.model, tokensIn, tokensOut),
      now,
    });
  });
  await publishEvent(deps, {
    type: "conversation.updated",
    workspaceId: input.workspaceId,
    conversationId: conversation.public_id,
    reason: "summary",
    actorUserId: input.userId,
  });
  return {
    summary: answer.summary,
    summary_at: now.toISOString(),
    intent: answer.intent,
    tag_suggestions: answer.tagSuggestions,
  };
}
