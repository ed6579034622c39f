/**
 * Every branding field as the dashboard's branding form sends it, each
 * optional (left out: kept). The portal's PUT takes four of these; the
 * dashboard takes them all, through the same bot update.
 */
import { z } from "zod";
import { chars } from "../schemas/text.ts";
import {
  COMPOSER_STYLES,
  LAUNCHERS,
  LAYOUTS,
  PROACTIVE_FREQUENCIES,
  RECOMMEND_MODES,
  THEMES,
} from "../../domain/chatbots/branding.ts";

// A refinement (not .regex) so the door keeps this sentence instead of "a valid regex".
export const hexColour = z.string().max(9).refine(
  (s) => /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/.test(s),
  "The primary color field must be a hex colour such as #4f46e5.",
);
const imageUrl = z.string().max(2048).refine(
  (s) => /^https?:\/\/[^\s]+$/i.test(s),
  "The address must be an http or https URL.",
);

export const brandingInput = z.object({
  primary_color: hexColour.optional(),
  launcher_text: chars(40).optional(),
  position: z.enum(["left", "right"]).optional(),
  theme: z.enum(THEMES).optional(),
  logo_url: imageUrl.nullable().optional(),
  avatar_url: imageUrl.nullable().optional(),
  title: chars(60).optional(),
  subtitle: chars(120).optional(),
  layout: z.enum(LAYOUTS).optional(),
  launcher: z.enum(LAUNCHERS).optional(),
  quick_replies: z.array(chars(80)).max(6).optional(),
  agent_avatars: z.array(imageUrl).max(5).optional(),
  composer_style: z.enum(COMPOSER_STYLES).optional(),
  sound: z.boolean().optional(),
  screen_share: z.boolean().optional(),
  copilot: z.boolean().optional(),
  auto_actions: z.boolean().optional(),
  copilot_use_profile: z.boolean().optional(),
  copilot_autostart: z.boolean().optional(),
  live_visitors: z.boolean().optional(),
  behavior_tracking: z.boolean().optional(),
  recommend_mode: z.enum(RECOMMEND_MODES).optional(),
  proactive: z.object({
    enabled: z.boolean().optional(),
    message: chars(300).optional(),
    delay: z.int().min(0).max(3600).optional(),
    scroll: z.int().min(0).max(100).optional(),
    exit_intent: z.boolean().optional(),
    url_contains: chars(200).optional(),
    frequency: z.enum(PROACTIVE_FREQUENCIES).optional(),
  }).optional(),
  /** The pre-chat form, replaced as a whole (the widget reads it from the stored branding). */
  prechat: z.object({
    enabled: z.boolean(),
    fields: z.array(z.object({
      name: z.enum(["name", "email", "phone"]),
      label: chars(80).optional(),
      required: z.boolean().optional(),
    })).max(3).refine(
      (fs) => new Set(fs.map((f) => f.name)).size === fs.length,
      "Each pre-chat field may appear once.",
    ),
  }).optional(),
});
