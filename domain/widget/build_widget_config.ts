/**
 * The public configuration the widget needs before it draws anything:
 * branding, welcome message, pre-chat form, and how to stay in touch.
 */
import type { ChatbotRow } from "../../db/chatbots.ts";
import { brandingOf, DEFAULT_WELCOME_MESSAGE } from "../chatbots/branding.ts";
import type { PrechatField, PrechatFieldName, WidgetConfig } from "./widget_config_shape.ts";

export type { PrechatField, PrechatFieldName, WidgetConfig } from "./widget_config_shape.ts";

/** First heartbeat interval; later ones follow the heartbeat's own `poll_seconds`. */
export const HEARTBEAT_SECONDS = 15;

const FIELD_DEFAULTS: Record<PrechatFieldName, Omit<PrechatField, "required">> = {
  name: { name: "name", label: "Name", type: "text" },
  email: { name: "email", label: "E-mail", type: "email" },
  phone: { name: "phone", label: "Phone", type: "tel" },
};

/** Where widgets reach the socket server: its public `ws(s)://` address (REALTIME_URL). */
export interface RealtimeEndpoint {
  key: string;
  url: string;
}

export function buildWidgetConfig(bot: ChatbotRow, realtime: RealtimeEndpoint): WidgetConfig {
  const branding = brandingOf(bot.branding);
  return {
    public_key: bot.public_key,
    name: bot.name,
    welcome_message: bot.welcome_message || DEFAULT_WELCOME_MESSAGE,
    branding,
    quick_replies: branding.quick_replies,
    proactive: branding.proactive,
    prechat: prechatOf(bot.branding?.prechat),
    realtime: {
      ...socketAddress(realtime),
      heartbeat_seconds: HEARTBEAT_SECONDS,
      stream_path: `/widget/${encodeURIComponent(bot.public_key)}/stream`,
    },
    features: { human_handoff: true, rating: true },
  };
}

/**
 * Stored pre-chat settings are free JSON (written by the dashboard): keep only
 * the fields the widget knows, once each, and fill labels and types.
 */
export function prechatOf(stored: unknown): WidgetConfig["prechat"] {
  if (!stored || typeof stored !== "object") return { enabled: false, fields: [] };
  const s = stored as { enabled?: unknown; fields?: unknown };
  const fields: PrechatField[] = [];
  for (const raw of Array.isArray(s.fields) ? s.fields : []) {
    const f = (typeof raw === "string" ? { name: raw } : raw) as Record<string, unknown> | null;
    const name = f?.name;
    if (name !== "name" && name !== "email" && name !== "phone") continue;
    if (fields.some((x) => x.name === name)) continue;
    const base = FIELD_DEFAULTS[name];
    fields.push({
      ...base,
      label: typeof f?.label === "string" && f.label.trim()
        ? f.label.trim().slice(0, 80)
        : base.label,
      required: f?.required === true,
    });
  }
  return { enabled: s.enabled === true && fields.length > 0, fields };
}

function socketAddress(r: RealtimeEndpoint) {
  const url = new URL(r.url);
  const tls = url.protocol === "wss:" || url.protocol === "https:";
  return {
    transport: "pusher" as const,
    key: r.key,
    host: url.hostname,
    port: url.port ? Number(url.port) : tls ? 443 : 80,
    tls,
  };
}
