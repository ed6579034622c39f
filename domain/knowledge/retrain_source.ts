/**
 * Retrain a top-level knowledge source: it goes back to `pending` and its
 * indexing job is queued again (the job's dedupe key makes a second click a
 * no-op), so a text or Q&A source is re-chunked and re-embedded, and a url
 * source is crawled afresh. Its current chunks keep answering until the new
 * ones replace them in one transaction.
 */
import type { AppDeps } from "../deps.ts";
import { findSource, setSourceStatus } from "../../db/knowledge.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { NotFound } from "../errors.ts";
import { enqueueIndexing, INDEX_SOURCE, wakeWorkers } from "../jobs/job_queue.ts";
import { type SourceView, sourceView } from "./list_sources.ts";

export async function retrainSource(
  deps: Pick<AppDeps, "sql" | "kv" | "bus">,
  workspaceId: number,
  publicKey: string,
  sourceId: number,
): Promise<SourceView> {
  const bot = await getChatbot(deps.sql, workspaceId, publicKey);
  const row = await deps.sql.begin(async (tx) => {
    const source = await findSource(tx, workspaceId, sourceId);
    if (!source || source.chatbot_id !== bot.id || source.parent_id !== null) return null;
    await setSourceStatus(tx, workspaceId, source.id, "pending");
    await enqueueIndexing(tx, { workspaceId, sourceId: source.id });
    return await findSource(tx, workspaceId, source.id);
  });
  if (!row) throw new NotFound("Knowledge source not found.");
  await wakeWorkers(deps.kv, INDEX_SOURCE);
  await deps.bus.emit({
    type: "knowledge.changed",
    workspaceId,
    chatbotId: bot.id,
    sourceId: row.id,
    action: "retrained",
  });
  return sourceView(row);
}
