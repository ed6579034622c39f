/**
 * The shape of `GET /widget/{key}/config` (docs/widget-api.md): one
 * definition for the server that builds it and for widget.js that reads it.
 * Types only, importing nothing but the branding types, so the browser
 * bundle can import it without taking any server code along.
 */
import type { Branding, Proactive } from "../chatbots/branding.ts";

export type PrechatFieldName = "name" | "email" | "phone";

export interface PrechatField {
  name: PrechatFieldName;
  label: string;
  type: "text" | "email" | "tel";
  required: boolean;
}

export interface WidgetConfig {
  public_key: string;
  name: string;
  welcome_message: string;
  branding: Branding;
  quick_replies: string[];
  proactive: Proactive;
  prechat: { enabled: boolean; fields: PrechatField[] };
  realtime: WidgetRealtime;
  features: { human_handoff: boolean; rating: boolean };
}

/**
 * How the widget stays in touch: a Pusher-protocol socket at
 * `ws(s)://{host}:{port}/app/{key}` (docs/realtime.md) for agent replies,
 * typing and state as they happen, with the heartbeat as the fallback.
 */
export interface WidgetRealtime {
  transport: "pusher";
  key: string;
  host: string;
  port: number;
  tls: boolean;
  heartbeat_seconds: number;
  stream_path: string;
}
