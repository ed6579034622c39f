/** Output shapes shared by the agent procedures: the inbox row, `active`, messages. */
import { z } from "zod";

const int = () => z.number().int();

export const tag = z.object({ id: int(), name: z.string(), color: z.string() });

export const agentMessage = z.object({
  id: int(),
  role: z.enum(["visitor", "assistant", "agent"]),
  content: z.string(),
  at: z.string().meta({ description: "Time of day, `HH:MM`" }),
});

export const inboxGroup = z.enum(["waiting", "mine", "team", "ai", "resolved"]);

export const inboxRow = z.object({
  id: z.string().meta({ description: "Conversation UUID" }),
  chatbot: z.string(),
  visitor: z.string(),
  email: z.string().nullable(),
  status: z.enum(["bot", "agent", "closed"]),
  channel: z.string(),
  last_at: z.string().meta({ description: 'Relative display string, e.g. "5 min ago"' }),
  preview: z.string().nullable(),
  escalated: z.boolean(),
  unread: int(),
  resolution: z.string().nullable(),
  tags: z.array(tag),
  group: inboxGroup,
  handoff_state: z.enum(["bot_active", "handoff_pending", "human_connected"]),
  assigned_to: z.string().nullable(),
  mine: z.boolean(),
  online: z.boolean(),
  waiting_seconds: int().nullable(),
  waiting_reason: z.string().nullable().meta({
    description:
      "Why a waiting conversation needs a person: the AI's failure, or the visitor's request",
  }),
});

export const activeConversation = z.object({
  id: z.string(),
  status: z.enum(["bot", "agent", "closed"]),
  resolution: z.string().nullable(),
  resolved_at: z.string().nullable(),
  handoff_requested_at: z.string().nullable(),
  escalated: z.boolean(),
  resolved_by_ai: z.boolean(),
  mine: z.boolean(),
  online: z.boolean(),
  watching: z.boolean(),
  blocked: z.boolean(),
  events: z.array(z.object({
    type: z.string(),
    source: z.string(),
    at: z.string(),
    by: z.string().nullable(),
  })),
  tags: z.array(tag.extend({ source: z.string() })),
  tag_suggestions: z.array(z.object({
    id: int(),
    name: z.string(),
    confidence: z.number(),
    reason: z.string(),
  })),
  visitor: z.string(),
  visitor_id: z.string(),
  chatbot: z.string(),
  channel: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  page: z.string().nullable(),
  page_title: z.string().nullable(),
  locale: z.string().nullable(),
  joined: z.string(),
  last_seen: z.string().nullable(),
  referrer: z.string().nullable(),
  entry_page: z.string().nullable(),
  device: z.string().nullable(),
  browser: z.string().nullable(),
  os: z.string().nullable(),
  country: z.string().nullable(),
  timezone: z.string().nullable(),
  detected_language: z.string().nullable(),
  routed_by: z.string().nullable(),
  waiting_reason: z.string().nullable(),
  copilot: z.boolean(),
  copilot_autostart: z.boolean(),
  screen_share: z.boolean(),
  assigned_to: z.string().nullable(),
  group: inboxGroup,
  handoff_state: z.enum(["bot_active", "handoff_pending", "human_connected"]),
  msg_count: int(),
  page_views: int().nullable(),
  abuse_strikes: int().nullable(),
  waiting_seconds: int().nullable(),
  lead_id: int().nullable(),
  prechat: z.array(z.object({ field: z.string(), value: z.string() })),
  prechat_greeting: z.string().nullable(),
  journey: z.array(z.object({ url: z.string(), at: z.string().nullable() })),
  revenue_cents: int(),
  revenue_amount: z.number(),
  revenue_currency: z.string().nullable(),
  revenue_label: z.string().nullable(),
  summary: z.string().nullable(),
  summary_at: z.string().nullable(),
  intent: z.string().nullable(),
  lead_status: z.string().nullable(),
  messages: z.array(agentMessage),
  notes: z.array(z.object({
    id: int(),
    body: z.string(),
    author: z.string().nullable(),
    at: z.string(),
  })),
  watchers: z.array(z.object({ id: int(), name: z.string() })),
});

export const inboxView = z.object({
  conversations: z.array(inboxRow),
  counts: z.object({ all: int(), ai: int(), human: int(), resolved: int(), unread: int() }),
  groups: z.object({ waiting: int(), mine: int(), team: int(), ai: int(), resolved: int() }),
  listed: int(),
  list_limit: int(),
  active: activeConversation.nullable(),
});
