/**
 * One of the report's tables (agents, bots, tags) as a CSV file: the same
 * report the API answers, the same rows in the same order, the API's field
 * names as the header, so a file's numbers agree with the screen's. Names
 * are user-written text: the CSV module guards them against formulas.
 */
import type { Executor } from "../../db/client.ts";
import { csvLine } from "../history/csv.ts";
import { buildReport, type ReportInput } from "./build_report.ts";

export const REPORT_TABLES = ["agents", "bots", "tags"] as const;
export type ReportTable = typeof REPORT_TABLES[number];

export const TABLE_COLUMNS: Record<ReportTable, readonly string[]> = {
  agents: [
    "id",
    "name",
    "conversations",
    "first_response_median_seconds",
    "resolution_median_seconds",
    "ratings",
    "good_share",
  ],
  bots: [
    "key",
    "name",
    "conversations",
    "resolved",
    "ai_resolution_rate",
    "ratings",
    "good_share",
    "tokens",
    "cost",
  ],
  tags: ["id", "name", "conversations", "resolved", "resolution_median_seconds"],
};

export async function exportReportTable(
  sql: Executor,
  workspace: { id: number; slug: string },
  input: ReportInput & { table: ReportTable },
  now: Date,
): Promise<{ filename: string; text: string }> {
  const report = await buildReport(sql, workspace.id, input, now);
  const columns = TABLE_COLUMNS[input.table];
  const rows = report[input.table] as unknown as Record<string, string | number | null>[];
  const text = "\uFEFF" + csvLine(columns) +
    rows.map((row) => csvLine(columns.map((c) => row[c]))).join("");
  const slug = workspace.slug.replace(/[^a-z0-9-]/gi, "");
  return { filename: `report-${input.table}-${slug}-${input.from}-${input.to}.csv`, text };
}
