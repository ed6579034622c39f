/**
 * A url source's sync schedule: off, daily or weekly. Turning it on makes the
 * next sync due one interval from now; off clears it. Only url sources have
 * one (a 422 otherwise).
 */
import type { AppDeps } from "../deps.ts";
import { findSource } from "../../db/knowledge.ts";
import { setSyncSchedule, type SyncSchedule } from "../../db/knowledge_sync.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { Invalid, NotFound } from "../errors.ts";
import { type SourceView, sourceView } from "./list_sources.ts";

export const SYNC_SCHEDULES = ["off", "daily", "weekly"] as const;

export async function setSourceSyncSchedule(
  deps: Pick<AppDeps, "sql" | "clock">,
  workspaceId: number,
  publicKey: string,
  sourceId: number,
  schedule: SyncSchedule,
): Promise<SourceView> {
  const bot = await getChatbot(deps.sql, workspaceId, publicKey);
  const row = await deps.sql.begin(async (tx) => {
    const source = await findSource(tx, workspaceId, sourceId);
    if (!source || source.chatbot_id !== bot.id || source.parent_id !== null) {
      throw new NotFound("Knowledge source not found.");
    }
    if (source.type !== "url") {
      throw Invalid.field("sync_schedule", "Only a website (url) source has a sync schedule.");
    }
    await setSyncSchedule(tx, workspaceId, source.id, schedule, deps.clock());
    return (await findSource(tx, workspaceId, source.id))!;
  });
  return sourceView(row);
}
