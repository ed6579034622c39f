/**
 * "Sync now" on a url source: the scheduled sync, at once. The source goes
 * back to `pending` and its indexing job is queued in one transaction; the
 * crawl then fetches known pages conditionally and re-embeds only changed
 * text (domain/crawl/index_url_source.ts). A sync already queued or running
 * is a conflict, not a second crawl.
 */
import type { AppDeps } from "../deps.ts";
import { findSource, setSourceStatus } from "../../db/knowledge.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { Conflict, Invalid, NotFound } from "../errors.ts";
import { enqueueIndexing, INDEX_SOURCE, wakeWorkers } from "../jobs/job_queue.ts";
import { publishSourceState } from "./source_progress.ts";
import { type SourceView, sourceView } from "./list_sources.ts";

export async function syncSourceNow(
  deps: Pick<AppDeps, "sql" | "kv" | "bus" | "log">,
  workspaceId: number,
  publicKey: string,
  sourceId: number,
): Promise<SourceView> {
  const bot = await getChatbot(deps.sql, workspaceId, publicKey);
  const row = await deps.sql.begin(async (tx) => {
    // Locked, so two clicks at once see each other's `pending`.
    const [locked] = await tx`
      SELECT id FROM knowledge_sources WHERE workspace_id = ${workspaceId} AND id = ${sourceId}
         FOR UPDATE`;
    const source = locked ? await findSource(tx, workspaceId, sourceId) : null;
    if (!source || source.chatbot_id !== bot.id || source.parent_id !== null) {
      throw new NotFound("Knowledge source not found.");
    }
    if (source.type !== "url") {
      throw Invalid.field("source", "Only a website (url) source can be synced.");
    }
    if (source.status === "pending" || source.status === "processing") {
      throw new Conflict("This source is already being indexed; try again when it is done.");
    }
    await setSourceStatus(tx, workspaceId, source.id, "pending");
    await enqueueIndexing(tx, { workspaceId, sourceId: source.id });
    return (await findSource(tx, workspaceId, source.id))!;
  });
  await wakeWorkers(deps.kv, INDEX_SOURCE);
  await publishSourceState(deps, workspaceId, row.id);
  return sourceView(row);
}
