/**
 * Delete a top-level knowledge source with everything indexed from it: its
 * stored text, its crawled pages, their chunks (foreign-key cascade) and its
 * pending indexing job, in one transaction.
 */
import type { AppDeps } from "../deps.ts";
import { deleteTopLevelSource } from "../../db/knowledge_admin.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { NotFound } from "../errors.ts";
import { cancelIndexing } from "../jobs/job_queue.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";

export async function deleteSource(
  deps: Pick<AppDeps, "sql" | "bus">,
  workspaceId: number,
  publicKey: string,
  sourceId: number,
  audit: { actor: AuditActor; now: Date },
): Promise<{ message: string }> {
  const bot = await getChatbot(deps.sql, workspaceId, publicKey);
  const deleted = await deps.sql.begin(async (tx) => {
    const found = await deleteTopLevelSource(tx, workspaceId, bot.id, sourceId);
    if (!found) return false;
    await cancelIndexing(tx, sourceId);
    await recordAudit(tx, {
      workspaceId,
      actor: audit.actor,
      action: "knowledge.deleted",
      target: { type: "knowledge_source", id: sourceId },
      details: { chatbot: publicKey },
      now: audit.now,
    });
    return true;
  });
  if (!deleted) throw new NotFound("Knowledge source not found.");
  await deps.bus.emit({
    type: "knowledge.changed",
    workspaceId,
    chatbotId: bot.id,
    sourceId,
    action: "deleted",
  });
  return { message: "Knowledge source deleted." };
}
