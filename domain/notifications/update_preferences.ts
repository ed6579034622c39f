/**
 * PATCH /api/agent/notifications/preferences. Only the fields sent change;
 * `events` is merged kind by kind (an old app cannot wipe a kind it does not
 * know); quiet hours change only when both ends are sent; `dnd_minutes` is
 * turned into an end time (0 cancels); `chatbot_filter` keeps only the
 * workspace's bots and an empty result removes the filter. Read, merge and
 * write happen under the row's lock, so two devices saving at once both count.
 */
import type { AppDeps } from "../deps.ts";
import {
  lockPreferences,
  savePreferences,
  workspaceChatbotIds,
} from "../../db/notification_preferences.ts";
import type { Auth } from "../auth/tokens.ts";
import { ServerFault } from "../errors.ts";
import type { AlertKind } from "./alert_kinds.ts";
import { type Preferences, resolvePreferences } from "./preferences.ts";

export interface PreferencesPatch {
  push_enabled?: boolean;
  sound_enabled?: boolean;
  vibrate_enabled?: boolean;
  email_enabled?: boolean;
  events?: Partial<Record<AlertKind, { push: boolean; sound?: string | null }>>;
  sound_pack?: string;
  volume?: number;
  quiet_hours_start?: string | null;
  quiet_hours_end?: string | null;
  quiet_hours_tz?: string;
  dnd_minutes?: number;
  chatbot_filter?: number[] | null;
}

const PLAIN_FIELDS = [
  "push_enabled",
  "sound_enabled",
  "vibrate_enabled",
  "email_enabled",
  "sound_pack",
  "volume",
  "quiet_hours_tz",
] as const;

export async function updateNotificationPreferences(
  deps: AppDeps,
  auth: Auth,
  patch: PreferencesPatch,
): Promise<Preferences> {
  const now = deps.clock();
  const filter = patch.chatbot_filter === undefined
    ? undefined
    : patch.chatbot_filter === null
    ? null
    : await workspaceChatbotIds(deps.sql, auth.workspace.id, [...new Set(patch.chatbot_filter)]);
  try {
    return await deps.sql.begin(async (tx) => {
      const row = await lockPreferences(tx, auth.workspace.id, auth.user.id);
      const settings: Record<string, unknown> = { ...row.settings };
      for (const field of PLAIN_FIELDS) {
        if (patch[field] !== undefined) settings[field] = patch[field];
      }
      if (patch.events) {
        const events = { ...(settings.events as Record<string, unknown> | undefined) };
        for (const [kind, value] of Object.entries(patch.events)) {
          if (!value) continue;
          const before = events[kind] as { sound?: string | null } | undefined;
          events[kind] = {
            push: value.push,
            sound: value.sound !== undefined ? value.sound : (before?.sound ?? null),
          };
        }
        settings.events = events;
      }
      // Half a window has no effect; both ends null clear it.
      const start = patch.quiet_hours_start;
      const end = patch.quiet_hours_end;
      if (start !== undefined && end !== undefined && (start === null) === (end === null)) {
        settings.quiet_hours_start = start;
        settings.quiet_hours_end = end;
      }
      if (filter !== undefined) settings.chatbot_filter = filter?.length ? filter : null;
      let dndUntil = row.dnd_until;
      if (patch.dnd_minutes !== undefined) {
        dndUntil = patch.dnd_minutes === 0
          ? null
          : new Date(now.getTime() + patch.dnd_minutes * 60_000);
      }
      await savePreferences(tx, auth.user.id, settings, dndUntil);
      return resolvePreferences(settings, dndUntil, now);
    });
  } catch (err) {
    deps.log.error("notification preferences not saved", { err: String(err) });
    throw new ServerFault("The notification settings could not be saved. Nothing was changed.");
  }
}
