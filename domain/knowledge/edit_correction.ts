/**
 * Edit a correction's question or answer (dashboard): the Q&A source is
 * rewritten and audited in one transaction, then indexed again inside the
 * request, as a new correction is. Deleting one is deleting its source.
 */
import type { AppDeps } from "../deps.ts";
import { findCorrection, updateCorrectionSource } from "../../db/knowledge_corrections.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { Invalid, NotFound } from "../errors.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { publishEvent } from "../events.ts";
import { indexSourceNow } from "./index_source_now.ts";
import { type CorrectionView, correctionView } from "./correction_view.ts";

export async function editCorrection(
  deps: AppDeps,
  workspaceId: number,
  publicKey: string,
  correctionId: number,
  input: { question?: string; answer?: string },
  audit: { actor: AuditActor; now: Date },
): Promise<CorrectionView> {
  if (input.question === undefined && input.answer === undefined) {
    throw Invalid.field("answer", "Send the question, the answer or both to change.");
  }
  const bot = await getChatbot(deps.sql, workspaceId, publicKey);
  const found = await findCorrection(deps.sql, workspaceId, correctionId);
  if (!found || found.chatbot_id !== bot.id) throw new NotFound("Correction not found.");
  const question = input.question?.trim() || found.question;
  const answer = input.answer?.trim() || found.answer;
  await deps.sql.begin(async (tx) => {
    await updateCorrectionSource(tx, workspaceId, found.source_id, {
      title: question.slice(0, 200),
      question,
      answer,
      contentHash: await sha256Hex(`${question}\n${answer}`),
    });
    await recordAudit(tx, {
      workspaceId,
      actor: audit.actor,
      action: "knowledge.correction_changed",
      target: { type: "knowledge_source", id: found.source_id },
      details: { chatbot: publicKey },
      now: audit.now,
    });
  });
  await indexSourceNow(deps, workspaceId, found.source_id);
  await publishEvent(deps, {
    type: "knowledge.changed",
    workspaceId,
    chatbotId: bot.id,
    sourceId: found.source_id,
    action: "corrected",
  });
  return correctionView((await findCorrection(deps.sql, workspaceId, correctionId))!);
}
