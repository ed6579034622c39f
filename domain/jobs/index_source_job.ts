/**
 * The `index_source` job: moves a knowledge source `pending` → `processing`
 * → `ready`, training text and Q&A sources directly (an uploaded file's text
 * read first; an unreadable file fails at once with the reason) and crawling
 * url sources.
 * While retries remain a failed source goes back to `pending` with the
 * reason; when the job gives up it is `failed` with the reason. Each move is
 * published as `knowledge.progress` after it is written (the dashboard's live
 * list), as is a crawl's progress in between.
 */
import type { AppDeps } from "../deps.ts";
import { findSource } from "../../db/knowledge.ts";
import { recountPages, setSourceState, sourceLanguage } from "../../db/knowledge_admin.ts";
import { CrawlRefused } from "../crawl/crawl_site.ts";
import { indexUrlSource, SourceGone } from "../crawl/index_url_source.ts";
import { trainSource } from "../knowledge/train_source.ts";
import { readUploadedFile } from "../knowledge/files/read_uploaded_file.ts";
import { UnreadableFile } from "../knowledge/files/unreadable_file.ts";
import { publishSourceState } from "../knowledge/source_progress.ts";
import type { IndexSourcePayload } from "./job_queue.ts";
import { type JobHandler, PermanentJobError } from "./job_runner.ts";

function payloadOf(raw: Record<string, unknown>): IndexSourcePayload {
  return { workspaceId: Number(raw.workspaceId), sourceId: Number(raw.sourceId) };
}

export const indexSourceJob: JobHandler = {
  async run(deps, raw, ctx) {
    const { workspaceId, sourceId } = payloadOf(raw);
    const source = await findSource(deps.sql, workspaceId, sourceId);
    if (!source) return; // deleted before its turn: nothing to do
    await setSourceState(deps.sql, workspaceId, sourceId, "processing");
    await publishSourceState(deps, workspaceId, sourceId);
    const language = await sourceLanguage(deps.sql, workspaceId, sourceId);
    try {
      if (source.type === "url") {
        await indexUrlSource(deps, source, language, ctx.signal);
      } else {
        await readUploadedFile(deps, workspaceId, sourceId);
        await trainSource(deps, workspaceId, sourceId, language);
      }
    } catch (err) {
      if (err instanceof SourceGone) return;
      if (!(await findSource(deps.sql, workspaceId, sourceId))) return; // deleted meanwhile
      if (err instanceof CrawlRefused || err instanceof UnreadableFile) {
        throw new PermanentJobError(err.message);
      }
      throw err;
    }
    await publishSourceState(deps, workspaceId, sourceId);
    await deps.bus.emit({
      type: "knowledge.changed",
      workspaceId,
      chatbotId: source.chatbot_id,
      sourceId,
      action: "indexed",
    });
  },
  async onRetry(deps: AppDeps, raw, reason) {
    const { workspaceId, sourceId } = payloadOf(raw);
    await setSourceState(deps.sql, workspaceId, sourceId, "pending", reason);
    await publishSourceState(deps, workspaceId, sourceId);
  },
  async onGiveUp(deps: AppDeps, raw, reason) {
    const { workspaceId, sourceId } = payloadOf(raw);
    await recountPages(deps.sql, workspaceId, sourceId);
    await setSourceState(deps.sql, workspaceId, sourceId, "failed", reason);
    await publishSourceState(deps, workspaceId, sourceId);
  },
};
