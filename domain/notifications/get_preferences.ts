/** GET /api/agent/notifications/preferences: the stored preferences over the defaults. */
import type { AppDeps } from "../deps.ts";
import { findPreferences } from "../../db/notification_preferences.ts";
import type { Auth } from "../auth/tokens.ts";
import { type Preferences, resolvePreferences } from "./preferences.ts";

export async function getNotificationPreferences(
  deps: AppDeps,
  auth: Auth,
): Promise<Preferences> {
  const row = await findPreferences(deps.sql, auth.user.id);
  return resolvePreferences(row?.settings ?? null, row?.dnd_until ?? null, deps.clock());
}
