/**
 * The words of an alert: a title, a short body and the link the app opens.
 * The link is the agent app's deep link under BASE_URL (`/inbox?conversation=`
 * or `/inbox?visitor=`), documented in docs/notifications.md.
 */
import type { AlertConversation } from "../../db/notification_targets.ts";
import type { AlertPayload } from "./alert_kinds.ts";
import type { NotifyAgentsPayload } from "./alert_jobs.ts";

const BODY_CHARS = 140;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= BODY_CHARS ? flat : chars.slice(0, BODY_CHARS - 1).join("") + "…";
}

export function composeAlert(
  baseUrl: string,
  job: NotifyAgentsPayload,
  conversation: AlertConversation | null,
  chatbotName: string,
  waitedMinutes: number | null,
): AlertPayload {
  const who = conversation?.visitor_name || "A visitor";
  const conversationUrl = conversation
    ? `${baseUrl}/inbox?conversation=${encodeURIComponent(conversation.public_id)}`
    : null;
  const base = { kind: job.kind, conversation_id: conversation?.public_id ?? null };
  switch (job.kind) {
    case "visitor_arrived":
      return {
        ...base,
        title: `New visitor on ${chatbotName}`,
        body: job.pageUrl ? `Browsing ${excerpt(job.pageUrl)}` : "A visitor is on your site.",
        url: `${baseUrl}/inbox?visitor=${encodeURIComponent(job.visitorId ?? "")}`,
      };
    case "chat_started":
      return {
        ...base,
        title: "New chat",
        body: excerpt(`${who} started a chat with ${chatbotName}.`),
        url: conversationUrl!,
      };
    case "visitor_message":
      return {
        ...base,
        title: conversation?.visitor_name
          ? `Message from ${conversation.visitor_name}`
          : "New message",
        body: excerpt(conversation?.message ?? "The visitor sent a message."),
        url: conversationUrl!,
      };
    case "handoff_requested":
      return {
        ...base,
        title: "A visitor asks for a person",
        body: excerpt(`${who} is waiting for an agent on ${chatbotName}.`),
        url: conversationUrl!,
      };
    case "sla_breach":
      return {
        ...base,
        title: "A visitor has waited too long",
        body: excerpt(
          `${who} has waited ${waitedMinutes ?? "several"} min for an agent on ${chatbotName}.`,
        ),
        url: conversationUrl!,
      };
  }
}
