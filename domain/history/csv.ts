/**
 * CSV as RFC 4180 writes it (fields joined by commas, lines ended by CRLF, a
 * field holding a comma, quote, CR or LF quoted with its quotes doubled), with
 * the OWASP guard against formula injection: a text cell that a spreadsheet
 * would run as a formula (starting with =, +, -, @, tab or CR) is prefixed
 * with a single quote, so a visitor's "=HYPERLINK(...)" arrives as text.
 */

export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: numbers as they are, text guarded and quoted when it must be. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvLine(cells: readonly CsvCell[]): string {
  return cells.map(csvCell).join(",") + "\r\n";
}
