/**
 * Index a source inside the request (a correction, new or edited): the next
 * visitor is answered from it without waiting for a worker. Should indexing
 * fail (the provider's embeddings down), the source is handed to the indexing
 * job and its retries instead of failing the request that saved it.
 */
import type { AppDeps } from "../deps.ts";
import { setSourceState, sourceLanguage } from "../../db/knowledge_admin.ts";
import { enqueueIndexing, INDEX_SOURCE, wakeWorkers } from "../jobs/job_queue.ts";
import { trainSource } from "./train_source.ts";

export async function indexSourceNow(
  deps: AppDeps,
  workspaceId: number,
  sourceId: number,
): Promise<void> {
  const language = await sourceLanguage(deps.sql, workspaceId, sourceId);
  try {
    await trainSource(deps, workspaceId, sourceId, language);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    deps.log.warn("indexing in the request failed; the job retries", { err: reason });
    // Pending with the reason, as the job's own retry leaves it, not `failed`.
    await setSourceState(deps.sql, workspaceId, sourceId, "pending", reason);
    await enqueueIndexing(deps.sql, { workspaceId, sourceId });
    await wakeWorkers(deps.kv, INDEX_SOURCE);
  }
}
