/**
 * v1 knowledge creation: save a text or Q&A source and train it inside the
 * request. The same title and content again retrains that record instead of
 * adding a second one. When training fails the record stays (status
 * `failed`) and the 422 carries its id and status for a retry.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { findSourceByHash, insertSource, type KnowledgeSourceRow } from "../../db/knowledge.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { DomainError, Invalid } from "../errors.ts";
import { trainSource } from "./train_source.ts";
import { publishEvent } from "../events.ts";

export interface TrainedSource {
  source: KnowledgeSourceRow;
  /** False when an existing record with the same title and content was retrained. */
  created: boolean;
}

export async function addTrainedSource(
  deps: AppDeps,
  input: {
    workspaceId: number;
    bot: Pick<ChatbotRow, "id" | "language">;
    type: "text" | "qa";
    title: string;
    content: string;
  },
): Promise<TrainedSource> {
  const { workspaceId, bot, type, title, content } = input;
  // For Q&A the title is the question and the content the answer (as seeding hashes them).
  const hash = await sha256Hex(type === "qa" ? `${title}\n${content}` : content);
  const existing = await findSourceByHash(deps.sql, workspaceId, bot.id, title, hash);
  const source = existing && existing.type === type ? existing : await insertSource(
    deps.sql,
    workspaceId,
    {
      chatbotId: bot.id,
      type,
      title,
      content: type === "text" ? content : null,
      question: type === "qa" ? title : null,
      answer: type === "qa" ? content : null,
      contentHash: hash,
      status: "pending",
    },
  );
  try {
    const trained = await trainSource(deps, workspaceId, source.id, bot.language);
    // As the background indexing job does: the dashboard's list and every
    // instance's kept bot (domain/widget/known_bots.ts) learn of the change.
    await publishEvent(deps, {
      type: "knowledge.changed",
      workspaceId,
      chatbotId: bot.id,
      sourceId: source.id,
      action: "indexed",
    });
    return { source: trained, created: source !== existing };
  } catch (err) {
    const reason = err instanceof DomainError
      ? `Training failed: ${err.message}`
      : "Training failed because of a server error.";
    if (!(err instanceof DomainError)) deps.log.warn("training failed", { err: String(err) });
    throw new Invalid(
      `The document was saved but training failed. Send the same title and content again to retry.`,
      { content: [reason] },
      { id: source.id, status: "failed" },
    );
  }
}
