/** GET and PATCH /api/agent/notifications/preferences. */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { ALERT_KINDS } from "../../domain/notifications/alert_kinds.ts";
import { isTimeZone } from "../../domain/notifications/preferences.ts";
import { getNotificationPreferences } from "../../domain/notifications/get_preferences.ts";
import { updateNotificationPreferences } from "../../domain/notifications/update_preferences.ts";

const eventPreference = z.object({ push: z.boolean(), sound: chars(24).nullable() });
const hm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Use HH:MM (00:00 to 23:59).");

const preferences = z.object({
  push_enabled: z.boolean(),
  sound_enabled: z.boolean(),
  vibrate_enabled: z.boolean(),
  email_enabled: z.boolean(),
  events: z.object(Object.fromEntries(ALERT_KINDS.map((k) => [k, eventPreference]))),
  sound_pack: z.string(),
  volume: z.number().int(),
  quiet_hours_start: z.string().nullable(),
  quiet_hours_end: z.string().nullable(),
  quiet_hours_tz: z.string(),
  dnd_until: z.string().nullable(),
  chatbot_filter: z.array(z.number().int()).nullable(),
});

export const notificationPreferences = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/notifications/preferences",
      summary: "The agent's notification preferences, defaults filled in",
    },
    permission: "handle-conversations",
  })
  .input(z.object({}))
  .output(preferences)
  .query(({ ctx }) => getNotificationPreferences(ctx.deps, ctx.auth!));

// Unknown event kinds are dropped by the object schema (an app newer than
// the server may send kinds it does not know yet).
const eventsPatch = z.object(Object.fromEntries(ALERT_KINDS.map((k) => [
  k,
  z.object({ push: z.boolean(), sound: chars(24).nullable().optional() }).optional(),
])));

export const updatePreferences = agentProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/agent/notifications/preferences",
      summary: "Change some notification preferences (events merged, not replaced)",
    },
    permission: "handle-conversations",
  })
  .input(z.object({
    push_enabled: z.boolean().optional(),
    sound_enabled: z.boolean().optional(),
    vibrate_enabled: z.boolean().optional(),
    email_enabled: z.boolean().optional(),
    events: eventsPatch.optional(),
    sound_pack: chars(24).optional(),
    volume: z.number().int().min(0).max(100).optional(),
    quiet_hours_start: hm.nullable().optional(),
    quiet_hours_end: hm.nullable().optional(),
    quiet_hours_tz: chars(64).refine(isTimeZone, "Unknown time zone.").optional(),
    dnd_minutes: z.number().int().min(0).max(1440).optional(),
    chatbot_filter: z.array(z.number().int()).max(500).nullable().optional(),
  }))
  .output(preferences)
  .mutation(({ ctx, input }) => updateNotificationPreferences(ctx.deps, ctx.auth!, input));
