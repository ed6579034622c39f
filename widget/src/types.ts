/// <reference lib="dom" />
/**
 * Wire shapes of the widget endpoints (docs/widget-api.md), as the browser
 * sees them. Kept separate so every module reads the same contract.
 */

// The server's own branding types: type-only, so nothing of the server enters the bundle.
export type {
  Branding as BrandingSettings,
  Proactive as ProactiveSettings,
} from "../../domain/chatbots/branding.ts";
import type {
  Branding as BrandingSettings,
  Proactive as ProactiveSettings,
} from "../../domain/chatbots/branding.ts";

export interface PrechatField {
  name: "name" | "email" | "phone";
  label: string;
  type: "text" | "email" | "tel";
  required: boolean;
}

export interface WidgetConfig {
  public_key: string;
  name: string;
  welcome_message: string;
  branding: BrandingSettings;
  quick_replies: string[];
  proactive: ProactiveSettings;
  prechat: { enabled: boolean; fields: PrechatField[] };
  realtime: { transport: string; heartbeat_seconds: number; stream_path: string };
  features: { human_handoff: boolean; rating: boolean };
}

export type Role = "visitor" | "assistant" | "agent";

export interface ChatMessage {
  id: number;
  role: Role;
  content: string;
  at: string;
}

export interface ConversationState {
  conversation_id: string;
  status: "bot" | "agent" | "closed";
  handoff_state: "bot_active" | "handoff_pending" | "human_connected";
}

export interface Snapshot extends ConversationState {
  wait_remaining: unknown;
  messages: ChatMessage[];
}

export interface HeartbeatReply {
  poll_seconds: number;
  conversation: ConversationState | null;
  messages: ChatMessage[];
}

export interface Source {
  title: string;
  url: string | null;
}

/** What the visitor typed into the pre-chat form. */
export interface VisitorDetails {
  name?: string;
  email?: string;
  phone?: string;
}
