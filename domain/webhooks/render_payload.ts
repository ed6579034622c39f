/**
 * The JSON body of a webhook event (docs/webhooks.md): `id` (the webhook-id),
 * `type`, `version`, `timestamp` (when the event happened) and `data`, with
 * the same public ids as the APIs (conversation UUID, chatbot public key,
 * message id). Everything it shows was fixed when the event was recorded
 * (the event row and its conversation snapshot), so rendering is a pure
 * function of the row: every endpoint's first attempt gives the same bytes,
 * and the first one stored is what every later attempt and redelivery sends.
 */
import type { WebhookConversationRow } from "../../db/webhook_payloads.ts";
import { PAYLOAD_VERSION, PING_TYPE } from "./event_types.ts";

export interface EventToRender {
  publicId: string;
  type: string;
  createdAt: Date;
  source: Record<string, unknown>;
  /** The conversation when the event was recorded (null: none was found). */
  conversation: WebhookConversationRow | null;
}

function conversationData(id: string, row: WebhookConversationRow | null) {
  if (!row) return { id };
  return {
    id: row.public_id,
    chatbot_key: row.chatbot_key,
    channel: row.channel,
    status: row.status,
    handoff_state: row.handoff_state,
    visitor: {
      id: row.visitor_id,
      name: row.visitor_name,
      email: row.visitor_email,
      phone: row.visitor_phone,
    },
    assigned_to: row.assigned_user_id === null
      ? null
      : { id: Number(row.assigned_user_id), name: row.assigned_user_name },
    created_at: row.created_at.toISOString(),
    last_message_at: row.last_message_at.toISOString(),
  };
}

function eventData(e: EventToRender, row: WebhookConversationRow | null): Record<string, unknown> {
  const s = e.source;
  const actor = typeof s.actorUserId === "number" ? { by_user_id: s.actorUserId } : {};
  switch (e.type) {
    case "message.created":
      return {
        message: {
          id: s.messageId,
          role: s.role,
          content: s.content,
          created_at: s.createdAt,
        },
      };
    case "conversation.handoff_requested":
      return { requested_at: s.requestedAt ?? row?.handoff_requested_at?.toISOString() ?? null };
    case "conversation.assigned":
      return { assigned_user_id: s.userId ?? null, ...actor };
    case "conversation.resolved":
      return { resolved_at: row?.resolved_at?.toISOString() ?? null, ...actor };
    case "conversation.reopened":
      return { by: typeof s.actorUserId === "number" ? "agent" : "visitor", ...actor };
    case "conversation.rated":
      return { rating: { score: s.rating, comment: row?.rating_comment ?? null } };
    case "lead.captured":
      return { lead: { email: s.email } };
    default:
      return {};
  }
}

export function renderPayload(e: EventToRender): string {
  if (e.type === "contact.erased") return renderErasure(e);
  if (e.type === PING_TYPE) return renderPing(e);
  const conversationId = String(e.source.conversationId ?? "");
  const row = e.conversation;
  return JSON.stringify({
    id: e.publicId,
    type: e.type,
    version: PAYLOAD_VERSION,
    timestamp: e.createdAt.toISOString(),
    data: { conversation: conversationData(conversationId, row), ...eventData(e, row) },
  });
}

/**
 * `contact.erased` names no live conversation (they are gone): the erasure's
 * id and the public ids of what was erased, nothing that was in them.
 */
function renderErasure(e: EventToRender): string {
  const s = e.source;
  return JSON.stringify({
    id: e.publicId,
    type: e.type,
    version: PAYLOAD_VERSION,
    timestamp: e.createdAt.toISOString(),
    data: {
      erasure_id: s.erasureId,
      conversations: s.conversationIds,
      visitors: (s.visitors as { chatbotKey: string; visitorId: string }[]).map((v) => ({
        chatbot_key: v.chatbotKey,
        id: v.visitorId,
      })),
    },
  });
}

/** A test event (send_test_event.ts): no conversation, only the endpoint it was sent to. */
function renderPing(e: EventToRender): string {
  return JSON.stringify({
    id: e.publicId,
    type: PING_TYPE,
    version: PAYLOAD_VERSION,
    timestamp: e.createdAt.toISOString(),
    data: {
      endpoint: { id: Number(e.source.endpointId) },
      message: "A test event sent from the Parley dashboard.",
    },
  });
}
