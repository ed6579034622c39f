/**
 * An agent's notification preferences: the documented defaults, the stored
 * values laid over them, and the rules that decide whether one alert reaches
 * the agent now (master switch, per-kind flag, quiet hours in the agent's own
 * time zone, do-not-disturb, bot filter).
 */
import { ALERT_KINDS, type AlertKind } from "./alert_kinds.ts";

export interface EventPreference {
  push: boolean;
  /** Sound name; null plays the app's default. */
  sound: string | null;
}

export interface Preferences {
  push_enabled: boolean;
  sound_enabled: boolean;
  vibrate_enabled: boolean;
  email_enabled: boolean;
  events: Record<AlertKind, EventPreference>;
  sound_pack: string;
  volume: number;
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
  quiet_hours_tz: string;
  /** When do-not-disturb ends (ISO 8601), or null. */
  dnd_until: string | null;
  /** Bot ids the agent wants alerts for; null means every bot. */
  chatbot_filter: number[] | null;
}

/**
 * Defaults (documented in docs/notifications.md). A new visitor on a busy
 * site is frequent, so `visitor_arrived` starts off; every other kind is on.
 */
export function defaultPreferences(): Preferences {
  const events = Object.fromEntries(
    ALERT_KINDS.map((k) => [k, { push: k !== "visitor_arrived", sound: null }]),
  ) as Record<AlertKind, EventPreference>;
  return {
    push_enabled: true,
    sound_enabled: true,
    vibrate_enabled: true,
    email_enabled: false,
    events,
    sound_pack: "default",
    volume: 80,
    quiet_hours_start: null,
    quiet_hours_end: null,
    quiet_hours_tz: "UTC",
    dnd_until: null,
    chatbot_filter: null,
  };
}

/** Stored settings (validated when saved) over the defaults. */
export function resolvePreferences(
  settings: Record<string, unknown> | null,
  dndUntil: Date | null,
  now: Date,
): Preferences {
  const prefs = defaultPreferences();
  const stored = (settings ?? {}) as Partial<Preferences>;
  for (const key of Object.keys(prefs) as (keyof Preferences)[]) {
    if (key === "events" || key === "dnd_until" || !(key in stored)) continue;
    (prefs as unknown as Record<string, unknown>)[key] = stored[key];
  }
  for (const kind of ALERT_KINDS) {
    const e = stored.events?.[kind];
    if (e) prefs.events[kind] = { push: e.push, sound: e.sound ?? null };
  }
  prefs.dnd_until = dndUntil && dndUntil > now ? dndUntil.toISOString() : null;
  return prefs;
}

/** `HH:MM` now in `timeZone`, as minutes since midnight. */
export function minutesOfDay(now: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(now);
  const hour = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  return hour * 60 + minute;
}

function parseHm(hm: string): number {
  const [h, m] = hm.split(":").map(Number);
  return h! * 60 + m!;
}

/** Inside the quiet window; a window past midnight (22:00-07:00) wraps. */
export function inQuietHours(prefs: Preferences, now: Date): boolean {
  if (!prefs.quiet_hours_start || !prefs.quiet_hours_end) return false;
  const start = parseHm(prefs.quiet_hours_start);
  const end = parseHm(prefs.quiet_hours_end);
  if (start === end) return false;
  const t = minutesOfDay(now, prefs.quiet_hours_tz);
  return start < end ? t >= start && t < end : t >= start || t < end;
}

/** Quiet hours, DND and the bot filter: what mutes every channel. */
function muted(prefs: Preferences, chatbotId: number | null, now: Date): boolean {
  if (prefs.dnd_until && Date.parse(prefs.dnd_until) > now.getTime()) return true;
  if (inQuietHours(prefs, now)) return true;
  return prefs.chatbot_filter !== null && chatbotId !== null &&
    !prefs.chatbot_filter.includes(chatbotId);
}

export function wantsPush(
  prefs: Preferences,
  kind: AlertKind,
  chatbotId: number | null,
  now: Date,
): boolean {
  return prefs.push_enabled && prefs.events[kind].push && !muted(prefs, chatbotId, now);
}

/** E-mail follows the kind's flag and the mutes, independent of the push master switch. */
export function wantsEmail(
  prefs: Preferences,
  kind: AlertKind,
  chatbotId: number | null,
  now: Date,
): boolean {
  return prefs.email_enabled && prefs.events[kind].push && !muted(prefs, chatbotId, now);
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
