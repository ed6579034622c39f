/**
 * Delete a bot with everything that belongs to it, in one transaction: its
 * conversations and their messages, its knowledge sources with their pages,
 * chunks and pending indexing jobs. The month's usage keeps the messages it
 * already counted (docs/dashboard.md).
 */
import type { AppDeps } from "../deps.ts";
import { deleteChatbot } from "../../db/chatbots.ts";
import { cancelIndexing } from "../jobs/job_queue.ts";
import { NotFound } from "../errors.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";

export async function deleteBot(
  deps: Pick<AppDeps, "sql">,
  workspaceId: number,
  publicKey: string,
  audit: { actor: AuditActor; now: Date },
): Promise<{ message: string }> {
  const deleted = await deps.sql.begin(async (tx) => {
    const found = await deleteChatbot(tx, workspaceId, publicKey);
    if (!found) return null;
    for (const id of found.sourceIds) await cancelIndexing(tx, id);
    await recordAudit(tx, {
      workspaceId,
      actor: audit.actor,
      action: "bot.deleted",
      target: { type: "chatbot", id: publicKey },
      details: { knowledge_sources: found.sourceIds.length },
      now: audit.now,
    });
    return found;
  });
  if (!deleted) throw new NotFound("Chatbot not found.");
  return { message: "The bot, its conversations and its knowledge were deleted." };
}
