/**
 * The spec's "Agent active conversation": every field filled from what the
 * service knows (the conversation, its visitor's heartbeats, the events log,
 * notes, watchers, tags), null where it cannot know.
 */
import type { ConversationDetail } from "../../db/conversation_detail.ts";
import type { ConversationStatus, HandoffState } from "../../db/conversations.ts";
import type { MessageRole } from "../../db/messages.ts";
import { dayAndTime, timeOfDay } from "../display_time.ts";
import { describeDevice } from "../visitors/device_info.ts";
import { isOnline } from "../visitors/online.ts";
import { revenueView } from "../assist/record_revenue.ts";
import { brandingOf } from "../chatbots/branding.ts";
import {
  type InboxGroup,
  inboxGroup,
  visitorDisplayName,
  waitingReason,
  waitingSeconds,
} from "./inbox_group.ts";

export interface ActiveConversation {
  id: string;
  status: ConversationStatus;
  resolution: string | null;
  resolved_at: string | null;
  handoff_requested_at: string | null;
  escalated: boolean;
  resolved_by_ai: boolean;
  mine: boolean;
  online: boolean;
  watching: boolean;
  blocked: boolean;
  events: { type: string; source: string; at: string; by: string | null }[];
  tags: { id: number; name: string; color: string; source: string }[];
  tag_suggestions: { id: number; name: string; confidence: number; reason: string }[];
  visitor: string;
  visitor_id: string;
  chatbot: string;
  channel: string;
  email: string | null;
  phone: string | null;
  page: string | null;
  page_title: string | null;
  locale: string | null;
  joined: string;
  last_seen: string | null;
  referrer: string | null;
  entry_page: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  timezone: string | null;
  detected_language: string | null;
  routed_by: string | null;
  waiting_reason: string | null;
  /** The bot's copilot flags, so an inbox offers (or starts) AI help only where it is on. */
  copilot: boolean;
  copilot_autostart: boolean;
  /** The bot's `screen_share` flag: the inbox offers to ask for the visitor's page. */
  screen_share: boolean;
  assigned_to: string | null;
  group: InboxGroup;
  handoff_state: HandoffState;
  msg_count: number;
  page_views: number | null;
  abuse_strikes: number | null;
  waiting_seconds: number | null;
  lead_id: number | null;
  prechat: { field: string; value: string }[];
  prechat_greeting: string | null;
  journey: { url: string; at: string | null }[];
  revenue_cents: number;
  revenue_amount: number;
  revenue_currency: string | null;
  revenue_label: string | null;
  summary: string | null;
  summary_at: string | null;
  intent: string | null;
  lead_status: string | null;
  messages: { id: number; role: MessageRole; content: string; at: string }[];
  notes: { id: number; body: string; author: string | null; at: string }[];
  watchers: { id: number; name: string }[];
}

export interface ActiveView {
  viewerUserId: number;
  now: Date;
  timeZone?: string;
}

export function toActiveConversation(d: ConversationDetail, view: ActiveView): ActiveConversation {
  const tz = view.timeZone;
  const time = (iso: string) => timeOfDay(new Date(iso), tz);
  const visitor = d.visitor;
  const device = describeDevice(visitor?.user_agent);
  return {
    id: d.public_id,
    status: d.status,
    resolution: d.resolution,
    resolved_at: d.resolved_at ? dayAndTime(d.resolved_at, tz) : null,
    handoff_requested_at: d.handoff_requested_at ? dayAndTime(d.handoff_requested_at, tz) : null,
    escalated: d.handoff_requested_at !== null,
    resolved_by_ai: d.resolved_by_ai,
    mine: d.assigned_user_id === view.viewerUserId,
    online: isOnline(visitor?.last_seen_at, view.now),
    watching: d.watchers.some((w) => w.id === view.viewerUserId),
    blocked: d.blocked,
    events: d.events.map((e) => ({
      type: e.type,
      source: e.source,
      at: time(e.created_at),
      by: e.actor,
    })),
    tags: d.tags,
    tag_suggestions: d.tag_suggestions ?? [],
    visitor: visitorDisplayName(d.visitor_name, d.visitor_id),
    visitor_id: d.visitor_id,
    chatbot: d.chatbot,
    channel: d.channel,
    email: d.visitor_email,
    phone: d.visitor_phone,
    page: visitor?.page_url ?? null,
    page_title: visitor?.page_title ?? null,
    locale: visitor?.locale ?? null,
    joined: dayAndTime(d.created_at, tz),
    last_seen: visitor ? dayAndTime(new Date(visitor.last_seen_at), tz) : null,
    referrer: visitor?.referrer ?? null,
    entry_page: visitor?.entry_page ?? null,
    device: device.device,
    browser: device.browser,
    os: device.os,
    country: visitor?.country ?? null,
    timezone: visitor?.timezone ?? null,
    detected_language: null,
    routed_by: d.routed_by,
    waiting_reason: waitingReason(d),
    ...copilotFlags(d.chatbot_branding),
    assigned_to: d.assigned_to,
    group: inboxGroup(d, view.viewerUserId),
    handoff_state: d.handoff_state,
    msg_count: d.msg_count,
    page_views: visitor?.page_views ?? null,
    abuse_strikes: null,
    waiting_seconds: waitingSeconds(d, view.now),
    lead_id: null,
    prechat: prechatAnswers(d),
    prechat_greeting: prechatGreeting(d.chatbot_branding),
    journey: visitor?.journey ?? [],
    ...revenueFields(d),
    summary: d.summary,
    summary_at: d.summary_at ? dayAndTime(new Date(d.summary_at), tz) : null,
    intent: d.intent,
    lead_status: null,
    messages: d.messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      at: time(m.created_at),
    })),
    notes: d.notes.map((n) => ({
      id: n.id,
      body: n.body,
      author: n.author,
      at: time(n.created_at),
    })),
    watchers: d.watchers,
  };
}

/** Revenue an agent attributed (POST .../revenue); none is 0 (the spec types the amount integer). */
function revenueFields(d: ConversationDetail) {
  if (d.revenue_cents === null || d.revenue_currency === null) {
    return {
      revenue_cents: 0,
      revenue_amount: 0,
      revenue_currency: null,
      revenue_label: null,
    };
  }
  return revenueView(Number(d.revenue_cents), d.revenue_currency, d.revenue_label);
}

/** The pre-chat form's answers the visitor gave (name, e-mail, phone), in form order. */
function prechatAnswers(d: ConversationDetail): { field: string; value: string }[] {
  const answers: { field: string; value: string }[] = [];
  if (d.visitor_name) answers.push({ field: "name", value: d.visitor_name });
  if (d.visitor_email) answers.push({ field: "email", value: d.visitor_email });
  if (d.visitor_phone) answers.push({ field: "phone", value: d.visitor_phone });
  return answers;
}

/** The greeting the bot's pre-chat form showed, when the workspace wrote one. */
function prechatGreeting(branding: Record<string, unknown>): string | null {
  const prechat = branding?.prechat as { enabled?: unknown; greeting?: unknown } | undefined;
  return prechat?.enabled === true && typeof prechat.greeting === "string" && prechat.greeting
    ? prechat.greeting
    : null;
}

function copilotFlags(stored: Record<string, unknown>) {
  const b = brandingOf(stored);
  return {
    copilot: b.copilot,
    copilot_autostart: b.copilot && b.copilot_autostart,
    screen_share: b.screen_share,
  };
}
