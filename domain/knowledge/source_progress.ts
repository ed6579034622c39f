/**
 * The `knowledge.progress` event of a source, published after its state or
 * crawl counts were written: the dashboard's knowledge list follows indexing
 * live from it (docs/realtime.md, `source.progress`).
 */
import type { AppDeps } from "../deps.ts";
import { findSource, type KnowledgeSourceRow } from "../../db/knowledge.ts";
import { type ParleyEvent, publishEvent } from "../events.ts";

type ProgressEvent = Extract<ParleyEvent, { type: "knowledge.progress" }>;
const STATES: readonly ProgressEvent["status"][] = ["pending", "processing", "ready", "failed"];

export function progressOf(s: KnowledgeSourceRow): ProgressEvent {
  const status = STATES.find((x) => x === s.status) ?? "pending";
  return {
    type: "knowledge.progress",
    workspaceId: s.workspace_id,
    chatbotId: s.chatbot_id,
    sourceId: s.id,
    status,
    pages: s.type === "url"
      ? {
        found: s.pages_found,
        indexed: s.pages_indexed,
        failed: s.pages_failed,
        skipped: s.pages_skipped,
      }
      : null,
    chunkCount: s.chunk_count,
    error: status === "ready" ? null : s.error,
  };
}

/** Reads the source as committed and publishes its state (nothing when it was deleted). */
export async function publishSourceState(
  deps: Pick<AppDeps, "sql" | "bus" | "log">,
  workspaceId: number,
  sourceId: number,
): Promise<void> {
  const row = await findSource(deps.sql, workspaceId, sourceId);
  if (row && row.parent_id === null) await publishEvent(deps, progressOf(row));
}
