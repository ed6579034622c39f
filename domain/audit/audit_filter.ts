/**
 * The audit log's filter and cursor as the caller sent them (strings, as a
 * query string carries them), checked and turned into the db's terms. Shared
 * by the list and its CSV export, so both show the same rows.
 */
import type { AuditFilter, AuditKey } from "../../db/audit_log.ts";
import { Invalid } from "../errors.ts";

export interface AuditFilterInput {
  /** A user id: what this person did. */
  person?: string;
  /** One of AUDIT_ACTIONS. */
  action?: string;
  /** On or after this UTC day (YYYY-MM-DD). */
  from?: string;
  /** On or before this UTC day (YYYY-MM-DD), inclusive. */
  to?: string;
}

const DAY_MS = 86_400_000;

function utcDay(field: string, value: string): Date {
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) {
    throw Invalid.field(field, `The ${field} field must be a date (YYYY-MM-DD).`);
  }
  return d;
}

export function resolveAuditFilter(input: AuditFilterInput): AuditFilter {
  const filter: AuditFilter = {};
  if (input.person !== undefined) filter.userId = Number(input.person);
  if (input.action !== undefined) filter.action = input.action;
  if (input.from !== undefined) filter.from = utcDay("from", input.from);
  if (input.to !== undefined) filter.until = new Date(utcDay("to", input.to).getTime() + DAY_MS);
  if (filter.from && filter.until && filter.until <= filter.from) {
    throw Invalid.field("to", "The to date must not be before the from date.");
  }
  return filter;
}

/** The next page's place as an opaque string: base64url of `<ISO time>|<id>`. */
export function encodeAuditCursor(key: AuditKey): string {
  return btoa(`${key.occurredAt.toISOString()}|${key.id}`)
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function decodeAuditCursor(cursor: string): AuditKey {
  const bad = () => Invalid.field("cursor", "The cursor is not one this list gave.");
  let text: string;
  try {
    text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    throw bad();
  }
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([1-9]\d{0,15})$/.exec(text);
  const occurredAt = m ? new Date(m[1]!) : null;
  if (!m || !occurredAt || Number.isNaN(occurredAt.getTime())) throw bad();
  return { occurredAt, id: Number(m[2]) };
}
