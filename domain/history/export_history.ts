/**
 * The filtered history as a CSV file, streamed: the rows are read in batches
 * of EXPORT_BATCH on the history's own keyset, each batch only when the
 * client has taken the one before (a pull stream), so memory holds one batch
 * whatever the export's size. Between batches the database connection is
 * free for other requests: the embedded database has one connection, which a
 * server-side cursor would hold for the whole download. The filter is checked
 * before the stream opens, so a bad one is a plain 422.
 */
import type { Executor } from "../../db/client.ts";
import {
  exportBatch,
  type HistoryExportRow,
  type HistoryKey,
} from "../../db/conversation_history.ts";
import { type HistoryFilterInput, resolveHistoryFilter } from "./history_filter.ts";
import { type CsvCell, csvLine } from "./csv.ts";

export const EXPORT_BATCH = 1000;

const COLUMNS: [string, (r: HistoryExportRow) => CsvCell][] = [
  ["conversation_id", (r) => r.public_id],
  ["bot", (r) => r.bot_name],
  ["bot_key", (r) => r.bot_key],
  ["status", (r) => r.status],
  ["handoff_state", (r) => r.handoff_state],
  ["resolution", (r) => r.resolution],
  ["started_at", (r) => r.created_at.toISOString()],
  ["last_message_at", (r) => r.last_message_at.toISOString()],
  ["resolved_at", (r) => r.resolved_at?.toISOString()],
  ["visitor_id", (r) => r.visitor_id],
  ["visitor_name", (r) => r.visitor_name],
  ["visitor_email", (r) => r.visitor_email],
  ["visitor_phone", (r) => r.visitor_phone],
  ["assigned_to", (r) => r.assigned_to],
  ["tags", (r) => r.tags.map((t) => t.name).join("; ")],
  ["rating", (r) => r.rating],
  ["rating_comment", (r) => r.rating_comment],
  ["messages", (r) => r.message_count],
  ["first_visitor_message", (r) => r.first_message],
];

/** The header line's column names, in order. */
export const EXPORT_COLUMNS = COLUMNS.map(([name]) => name);

export interface HistoryExport {
  filename: string;
  body: ReadableStream<Uint8Array>;
}

export async function exportHistory(
  sql: Executor,
  workspace: { id: number; slug: string },
  input: HistoryFilterInput,
  now: Date,
  onError: (err: unknown) => void,
): Promise<HistoryExport> {
  const filter = await resolveHistoryFilter(sql, workspace.id, input);
  const encoder = new TextEncoder();
  let after: HistoryKey | null = null;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // The byte-order mark tells spreadsheet programs the file is UTF-8.
      controller.enqueue(encoder.encode("\uFEFF" + csvLine(EXPORT_COLUMNS)));
    },
    async pull(controller) {
      if (done) return;
      try {
        const rows = await exportBatch(sql, workspace.id, filter, after, EXPORT_BATCH);
        let text = "";
        for (const r of rows) text += csvLine(COLUMNS.map(([, cell]) => cell(r)));
        if (text) controller.enqueue(encoder.encode(text));
        const last = rows.at(-1);
        if (rows.length < EXPORT_BATCH || !last) {
          done = true;
          controller.close();
        } else {
          after = { startedAt: last.started_key, id: last.id };
        }
      } catch (err) {
        // Headers are sent: the only honest signal left is a broken download.
        done = true;
        onError(err);
        controller.error(err);
      }
    },
    cancel() {
      done = true;
    },
  }, { highWaterMark: 0 });
  const slug = workspace.slug.replace(/[^a-z0-9-]+/gi, "-") || "workspace";
  return { filename: `conversations-${slug}-${now.toISOString().slice(0, 10)}.csv`, body };
}
