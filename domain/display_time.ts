/**
 * Display strings of the agent API (documented in docs/agent-api.md): a
 * relative age for inbox rows (`last_at`), a time of day for messages, notes
 * and events (`at`), a short date and time for the active conversation's
 * timestamps. Times are in UTC unless the client names its zone (IANA, e.g.
 * `Europe/Paris`); formatters are built once per zone.
 */

const formatters = new Map<string, { time: Intl.DateTimeFormat; day: Intl.DateTimeFormat }>();

function formattersFor(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = {
      time: new Intl.DateTimeFormat("en-GB", {
        timeZone,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }),
      day: new Intl.DateTimeFormat("en-GB", { timeZone, day: "numeric", month: "short" }),
    };
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether `zone` names a time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    formattersFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** "14:05": the time of day. */
export function timeOfDay(at: Date, timeZone = "UTC"): string {
  return formattersFor(timeZone).time.format(at);
}

/** "23 Nov 14:05": a day and a time, for timestamps that may be days old. */
export function dayAndTime(at: Date, timeZone = "UTC"): string {
  const f = formattersFor(timeZone);
  return `${f.day.format(at)} ${f.time.format(at)}`;
}

/**
 * "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the
 * date ("12 Mar"): how long since a conversation last moved.
 */
export function relativeAge(at: Date, now: Date, timeZone = "UTC"): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - at.getTime()) / 1000));
  if (seconds < 60) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return formattersFor(timeZone).day.format(at);
}
