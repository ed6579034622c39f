/**
 * The dashboard's try-it box: one question to a bot, answered by the widget's
 * own pipeline (prepareReply: the bot's provider and retrieval as they rank;
 * startReplyDraft: the same prompt and budget), with the passages the prompt
 * carried and their scores, so an owner sees why the bot said what it said.
 *
 * A try is a rehearsal, not a conversation: nothing is stored, no event is
 * published, and it does not count against the plan's monthly messages (an
 * owner testing their knowledge must not use up their visitors' quota). Its
 * provider tokens are spent on the workspace's own key; the route's rate limit
 * bounds them. It works on an inactive bot too, so a bot can be tried before
 * it goes live.
 */
import type { AppDeps } from "../deps.ts";
import { getChatbotForReply } from "../chatbots/get_chatbot.ts";
import { prepareReply } from "../ai/prepare_reply.ts";
import { startReplyDraft } from "../ai/reply_draft.ts";
import { chunksWithinBudget } from "../ai/build_prompt.ts";
import { costMicroCents } from "../ai/pricing.ts";
import { correctionSourceIds } from "../../db/knowledge_corrections.ts";

export interface TryPassage {
  rank: number;
  source_id: number;
  source_title: string;
  title: string;
  url: string | null;
  content: string;
  score: number;
  /** The passage comes from a correction of an AI reply (knowledge_corrections). */
  correction: boolean;
}

export interface TryRun {
  model: string;
  /** The passages the prompt carried, in the prompt's order (best first). */
  passages: TryPassage[];
  /** Start streaming: deltas in order; settles with the usage when the provider is done. */
  answer(
    onDelta: (text: string) => void,
    signal: AbortSignal,
  ): Promise<{ tokens_in: number; tokens_out: number; cost_micro_cents: number }>;
}

export async function tryBot(
  deps: AppDeps,
  workspaceId: number,
  publicKey: string,
  question: string,
): Promise<TryRun> {
  const { bot, providerCiphertext } = await getChatbotForReply(
    deps.sql,
    workspaceId,
    publicKey,
    deps.clock(),
  );
  const prepared = prepareReply(deps, { workspaceId, bot, query: question, providerCiphertext });
  const { retrieved } = await prepared; // a missing key fails here, before the stream opens
  const used = chunksWithinBudget(retrieved);
  const corrections = await correctionSourceIds(
    deps.sql,
    workspaceId,
    [...new Set(used.map((c) => c.sourceId))],
  );
  return {
    model: bot.model,
    passages: used.map((c, i) => ({
      rank: i + 1,
      source_id: c.sourceId,
      source_title: c.sourceTitle,
      title: c.title,
      url: c.url,
      content: c.content,
      score: c.score,
      correction: corrections.has(c.sourceId),
    })),
    async answer(onDelta, signal) {
      const draft = startReplyDraft(prepared, { bot, history: [], question, stream: true });
      draft.listen(onDelta, signal);
      const { result } = await draft.done;
      return {
        tokens_in: result.tokensIn,
        tokens_out: result.tokensOut,
        cost_micro_cents: costMicroCents(bot.model, result.tokensIn, result.tokensOut),
      };
    },
  };
}
