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
export type { PrechatField, WidgetConfig } from "../../domain/widget/widget_config_shape.ts";

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

/** The handoff answer: whether anyone is there to take the conversation. */
export interface HandoffState extends ConversationState {
  agents_online: boolean;
}

export interface Snapshot extends ConversationState {
  wait_remaining: unknown;
  messages: ChatMessage[];
}

export interface HeartbeatReply {
  poll_seconds: number;
  conversation:
    | (ConversationState & {
      realtime_channel: string;
      /** An open screen-share request or share (branding `screen_share`). */
      screen_share?: { id: number; state: string } | null;
    })
    | null;
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

/** A product of the stream's `recommendations` event. */
export interface Product {
  id: string;
  name: string;
  price: number;
  currency: string;
  url: string;
  buy_url: string;
  image_url: string | null;
  description: string;
  in_stock: boolean;
}
