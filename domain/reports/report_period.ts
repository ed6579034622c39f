/**
 * A report's period: whole local days `from` … `to` (inclusive) in an IANA
 * time zone, turned into the instants [since, until) (a day of a daylight
 * saving change is 23 or 25 hours long), and the previous period of the same
 * number of days just before it, for the comparison.
 */
import { isTimeZone } from "../display_time.ts";
import { Invalid } from "../errors.ts";

/** The longest period a report covers, in days. */
export const MAX_REPORT_DAYS = 400;

export interface ReportPeriod {
  from: string;
  to: string;
  timeZone: string;
  since: Date;
  until: Date;
  days: number;
  /** Hourly buckets for a single day, daily ones otherwise. */
  granularity: "hour" | "day";
}

const DAY_MS = 86_400_000;

function parseDay(field: string, value: string): number {
  const t = Date.parse(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d\d-\d\d$/.test(value) || Number.isNaN(t) || isoDay(t) !== value) {
    throw Invalid.field(field, `The ${field} field must be a date (YYYY-MM-DD).`);
  }
  return t;
}

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The zone's offset from UTC at instant `t`, in milliseconds. */
function offsetAt(t: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  }).formatToParts(new Date(t));
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const local = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second"));
  return local - Math.floor(t / 1000) * 1000;
}

/** The instant local midnight starts the UTC-midnight-labelled day `day` in `timeZone`. */
export function localMidnight(day: number, timeZone: string): Date {
  let t = day - offsetAt(day, timeZone);
  t = day - offsetAt(t, timeZone);
  return new Date(t);
}

function periodOf(fromDay: number, toDay: number, timeZone: string): ReportPeriod {
  const days = Math.round((toDay - fromDay) / DAY_MS) + 1;
  return {
    from: isoDay(fromDay),
    to: isoDay(toDay),
    timeZone,
    since: localMidnight(fromDay, timeZone),
    until: localMidnight(toDay + DAY_MS, timeZone),
    days,
    granularity: days === 1 ? "hour" : "day",
  };
}

/** The period asked for, or Invalid naming the field. */
export function reportPeriod(
  input: { from: string; to: string; time_zone?: string },
): ReportPeriod {
  const timeZone = input.time_zone ?? "UTC";
  if (!isTimeZone(timeZone)) {
    throw Invalid.field("time_zone", "The time_zone field must name an IANA time zone.");
  }
  const from = parseDay("from", input.from);
  const to = parseDay("to", input.to);
  if (to < from) throw Invalid.field("to", "The to date must not be before the from date.");
  if ((to - from) / DAY_MS + 1 > MAX_REPORT_DAYS) {
    throw Invalid.field("to", `A report covers at most ${MAX_REPORT_DAYS} days.`);
  }
  return periodOf(from, to, timeZone);
}

/** The same number of days just before `p`. */
export function previousPeriod(p: ReportPeriod): ReportPeriod {
  const from = Date.parse(`${p.from}T00:00:00Z`) - p.days * DAY_MS;
  return periodOf(from, from + (p.days - 1) * DAY_MS, p.timeZone);
}

/** Every bucket label of the period: local days `YYYY-MM-DD`, or hours `YYYY-MM-DDTHH`. */
export function bucketLabels(p: ReportPeriod): string[] {
  const from = Date.parse(`${p.from}T00:00:00Z`);
  if (p.granularity === "day") {
    return Array.from({ length: p.days }, (_, i) => isoDay(from + i * DAY_MS));
  }
  // A local day's hours, read from the instants it spans (23, 24 or 25 of them).
  const labels: string[] = [];
  for (let t = p.since.getTime(); t < p.until.getTime(); t += 3_600_000) {
    const local = new Date(t + offsetAt(t, p.timeZone)).toISOString().slice(0, 13);
    if (!labels.includes(local)) labels.push(local);
  }
  return labels;
}
