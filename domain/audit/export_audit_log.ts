/**
 * The filtered audit log as a CSV file, newest first, every matching row.
 * Read in keyset batches as the client takes them (a pull stream), so memory
 * holds one batch whatever the log's size, and the connection is free
 * between batches. Cells go through the history export's CSV writer, with
 * its guard against spreadsheet formulas (a label is user-written).
 */
import type { Executor } from "../../db/client.ts";
import { type AuditKey, type AuditRow, pageAuditEntries } from "../../db/audit_log.ts";
import { type CsvCell, csvLine } from "../history/csv.ts";
import { type AuditFilterInput, resolveAuditFilter } from "./audit_filter.ts";

const BATCH_ROWS = 500;

const COLUMNS: [string, (r: AuditRow) => CsvCell][] = [
  ["id", (r) => r.id],
  ["occurred_at", (r) => r.occurred_at.toISOString()],
  ["actor_user_id", (r) => r.actor_user_id],
  ["actor_token_id", (r) => r.actor_token_id],
  ["actor", (r) => r.actor_label],
  ["ip", (r) => r.ip],
  ["action", (r) => r.action],
  ["target_type", (r) => r.target_type],
  ["target_id", (r) => r.target_id],
  ["details", (r) => JSON.stringify(r.details ?? {})],
];

/** The header line's column names, in order. */
export const AUDIT_EXPORT_COLUMNS = COLUMNS.map(([name]) => name);

export function exportAuditLog(
  sql: Executor,
  workspace: { id: number; slug: string },
  input: AuditFilterInput,
  now: Date,
  onError: (err: unknown) => void,
): { filename: string; body: ReadableStream<Uint8Array> } {
  const filter = resolveAuditFilter(input);
  const encoder = new TextEncoder();
  let after: AuditKey | null = null;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // The byte-order mark tells spreadsheet programs the file is UTF-8.
      controller.enqueue(encoder.encode("\uFEFF" + csvLine(AUDIT_EXPORT_COLUMNS)));
    },
    async pull(controller) {
      try {
        const rows = await pageAuditEntries(sql, workspace.id, filter, after, BATCH_ROWS);
        let text = "";
        for (const r of rows) text += csvLine(COLUMNS.map(([, cell]) => cell(r)));
        if (text) controller.enqueue(encoder.encode(text));
        const last = rows.at(-1);
        if (rows.length < BATCH_ROWS || !last) controller.close();
        else after = { occurredAt: last.occurred_at, id: last.id };
      } catch (err) {
        // Headers are sent: the only honest signal left is a broken download.
        onError(err);
        controller.error(err);
      }
    },
  }, { highWaterMark: 0 });
  const slug = workspace.slug.replace(/[^a-z0-9-]+/gi, "-") || "workspace";
  return { filename: `audit-log-${slug}-${now.toISOString().slice(0, 10)}.csv`, body };
}
