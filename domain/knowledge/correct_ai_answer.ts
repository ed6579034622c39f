/**
 * Correct an AI reply: an agent (inbox) or an owner or administrator
 * (dashboard history) marks an assistant message as wrong and writes the
 * right answer. The answer becomes an ordinary Q&A source of the
 * conversation's bot, so it is retrieved and ranked like any Q&A pair; the
 * `knowledge_corrections` row only records that it is a correction and where
 * it came from. Source, correction and audit entry are written in one
 * transaction; the source is then indexed inside the request, so the next
 * visitor is answered from it without waiting for a background job. Should
 * indexing fail (a provider's embeddings down), the indexing job takes it
 * over with its retries and the correction is returned as it stands.
 */
import type { AppDeps } from "../deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { insertSource } from "../../db/knowledge.ts";
import {
  findConversationMessage,
  findCorrection,
  insertCorrection,
  visitorMessageBefore,
} from "../../db/knowledge_corrections.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { Invalid, NotFound } from "../errors.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { publishEvent } from "../events.ts";
import { indexSourceNow } from "./index_source_now.ts";
import { type CorrectionView, correctionView } from "./correction_view.ts";

/** The knowledge title of a Q&A source is its question, shortened. */
const TITLE_MAX = 200;

export interface CorrectionActor {
  workspaceId: number;
  userId: number;
  userName: string;
  audit: AuditActor;
}

export async function correctAiAnswer(
  deps: AppDeps,
  actor: CorrectionActor,
  input: { conversationId: string; messageId: number; question?: string; answer: string },
): Promise<CorrectionView> {
  const { workspaceId } = actor;
  const conversation = await findConversationByPublicId(
    deps.sql,
    workspaceId,
    input.conversationId,
  );
  if (!conversation) throw new NotFound("Conversation not found.");
  const message = await findConversationMessage(
    deps.sql,
    workspaceId,
    conversation.id,
    input.messageId,
  );
  if (!message) throw new NotFound("Message not found in this conversation.");
  if (message.role !== "assistant") {
    throw Invalid.field("message", "Only an AI reply can be corrected.");
  }
  const question = input.question?.trim() ||
    (await visitorMessageBefore(deps.sql, workspaceId, conversation.id, message.id))?.trim();
  if (!question) {
    throw Invalid.field(
      "question",
      "The question field is required: no visitor message comes before this reply.",
    );
  }
  const answer = input.answer.trim();
  const now = deps.clock();
  const { sourceId, correctionId } = await deps.sql.begin(async (tx) => {
    const source = await insertSource(tx, workspaceId, {
      chatbotId: conversation.chatbot_id,
      type: "qa",
      title: question.slice(0, TITLE_MAX),
      question,
      answer,
      contentHash: await sha256Hex(`${question}\n${answer}`),
      status: "pending",
    });
    const correctionId = await insertCorrection(tx, workspaceId, {
      chatbotId: conversation.chatbot_id,
      sourceId: source.id,
      conversationId: conversation.id,
      messageId: message.id,
      userId: actor.userId,
      userName: actor.userName,
      now,
    });
    await recordAudit(tx, {
      workspaceId,
      actor: actor.audit,
      action: "knowledge.corrected",
      target: { type: "knowledge_source", id: source.id },
      details: { conversation: conversation.public_id, message: message.id },
      now,
    });
    return { sourceId: source.id, correctionId };
  });
  await indexSourceNow(deps, workspaceId, sourceId);
  await publishEvent(deps, {
    type: "knowledge.changed",
    workspaceId,
    chatbotId: conversation.chatbot_id,
    sourceId,
    action: "corrected",
  });
  return correctionView((await findCorrection(deps.sql, workspaceId, correctionId))!);
}
