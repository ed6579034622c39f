/**
 * The filtered history as a CSV file, streamed: the rows are read in batches
 * on the history's own keyset, each batch only when the client has taken the
 * one before (a pull stream), so memory holds one batch whatever the export's
 * size. Between batches the database connection is free for other requests: a
 * server-side cursor would hold it for the whole download.
 *
 * Each export holds one of the instance's export slots (export_gate.ts) from
 * before its first byte to its end; when none is free the export is refused
 * (503 with Retry-After) rather than queued, since a held-open download with
 * no bytes would meet the time-outs of browsers and proxies. A batch holds
 * the server's thread while it runs (embedded, the statement too), so batches
 * are sized to take about BATCH_TARGET_MS and run in turn, giving way to
 * requests (export_gate.ts). The filter is checked first, so a bad one is a
 * plain 422 even when every slot is taken.
 */
import type { Executor } from "../../db/client.ts";
import {
  exportBatch,
  type HistoryExportRow,
  type HistoryKey,
} from "../../db/conversation_history.ts";
import { type HistoryFilterInput, resolveHistoryFilter } from "./history_filter.ts";
import { type CsvCell, csvLine } from "./csv.ts";
import type { ExportGate } from "./export_gate.ts";
import { Unavailable } from "../errors.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { stateWords } from "../conversations/state_words.ts";

/**
 * How long a batch (its statement, and its rows turned into CSV) should take:
 * a request that arrives during one waits for its end. The next batch's size
 * follows the time the last one took (rows cost more with a search, and far
 * more on a loaded machine), within BATCH_MIN_ROWS and BATCH_MAX_ROWS.
 */
export const BATCH_TARGET_MS = 15;
const BATCH_MIN_ROWS = 20;
const BATCH_FIRST_ROWS = 100;
const BATCH_MAX_ROWS = 1000;

/** What a client refused for want of a slot should wait before asking again. */
export const EXPORT_RETRY_AFTER_SECONDS = 5;

/** The refusal's sentence, which the dashboard shows as it is. */
export function exportsBusyMessage(limit: number): string {
  return `Too many conversation exports are running on this server (at most ${limit} at a ` +
    `time). Please retry in ${EXPORT_RETRY_AFTER_SECONDS} seconds.`;
}

/**
 * An export whose client takes nothing for this long is ended (the download
 * breaks) and its slot freed: a stalled reader must not hold one for ever.
 */
export const EXPORT_STALL_MS = 60_000;

const COLUMNS: [string, (r: HistoryExportRow) => CsvCell][] = [
  ["conversation_id", (r) => r.public_id],
  ["bot", (r) => r.bot_name],
  ["bot_key", (r) => r.bot_key],
  ["status", (r) => r.status],
  ["handoff_state", (r) => r.handoff_state],
  // The same words the screens use for the two wire values above (docs/vocabulary.md).
  ["state", (r) => stateWords(r.status, r.handoff_state)],
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

export interface ExportContext {
  sql: Executor;
  /** The instance's export slots and batch turns (export_gate.ts). */
  gate: ExportGate;
  /**
   * Who asked: the export is recorded in the audit log before its first byte.
   * Null for a HEAD, which reads no row.
   */
  actor: AuditActor | null;
}

/** The next batch's size: the one that would have taken the target time, at most doubling. */
function nextBatchSize(size: number, elapsedMs: number): number {
  const fitted = Math.round(size * BATCH_TARGET_MS / Math.max(elapsedMs, 0.1));
  return Math.min(BATCH_MAX_ROWS, size * 2, Math.max(BATCH_MIN_ROWS, fitted));
}

export async function exportHistory(
  ctx: ExportContext,
  workspace: { id: number; slug: string },
  input: HistoryFilterInput,
  now: Date,
  onError: (err: unknown) => void,
): Promise<HistoryExport> {
  const { sql, gate } = ctx;
  const filter = await resolveHistoryFilter(sql, workspace.id, input);
  const ticket = gate.enter();
  if (!ticket) {
    throw new Unavailable(exportsBusyMessage(gate.limit), EXPORT_RETRY_AFTER_SECONDS);
  }
  if (ctx.actor) {
    try {
      await recordExport(sql, workspace.id, ctx.actor, input, now);
    } catch (err) {
      ticket.leave();
      throw err;
    }
  }
  const encoder = new TextEncoder();
  let after: HistoryKey | null = null;
  let size = BATCH_FIRST_ROWS;
  let done = false;
  let stall: ReturnType<typeof setTimeout> | undefined;
  const finish = () => {
    done = true;
    clearTimeout(stall);
    ticket.leave();
  };
  /** Armed while the client has the last chunk and has not asked for more. */
  const awaitClient = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    stall = setTimeout(() => {
      if (done) return;
      finish();
      controller.error(new Error("The export's client took nothing for too long."));
    }, EXPORT_STALL_MS);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // The byte-order mark tells spreadsheet programs the file is UTF-8.
      controller.enqueue(encoder.encode("\uFEFF" + csvLine(EXPORT_COLUMNS)));
      awaitClient(controller);
    },
    async pull(controller) {
      clearTimeout(stall);
      if (done) return;
      try {
        const limit = size;
        const { rows, text, ms } = await ticket.batch(async () => {
          const t0 = performance.now();
          const rows = await exportBatch(sql, workspace.id, filter, after, limit);
          let text = "";
          for (const r of rows) text += csvLine(COLUMNS.map(([, cell]) => cell(r)));
          return { rows, text, ms: performance.now() - t0 };
        });
        if (done) return; // cancelled while the batch ran
        size = nextBatchSize(limit, ms);
        if (text) controller.enqueue(encoder.encode(text));
        const last = rows.at(-1);
        if (rows.length < limit || !last) {
          finish();
          controller.close();
        } else {
          after = { startedAt: last.started_key, id: last.id };
          awaitClient(controller);
        }
      } catch (err) {
        // Headers are sent: the only honest signal left is a broken download.
        finish();
        onError(err);
        controller.error(err);
      }
    },
    cancel() {
      finish();
    },
  }, { highWaterMark: 0 });
  const slug = workspace.slug.replace(/[^a-z0-9-]+/gi, "-") || "workspace";
  return { filename: `conversations-${slug}-${now.toISOString().slice(0, 10)}.csv`, body };
}

/** The audit row: the filter as given (bot key, dates, words searched), not the rows. */
async function recordExport(
  sql: Executor,
  workspaceId: number,
  actor: AuditActor,
  input: HistoryFilterInput,
  now: Date,
): Promise<void> {
  const filter: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) if (typeof v === "string" && v) filter[k] = v;
  await recordAudit(sql, {
    workspaceId,
    actor,
    action: "conversations.exported",
    details: filter,
    now,
  });
}
