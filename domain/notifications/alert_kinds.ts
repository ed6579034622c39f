/** The five alert kinds agents can be told about (spec: notification event kinds). */

export const ALERT_KINDS = [
  "visitor_arrived",
  "chat_started",
  "visitor_message",
  "handoff_requested",
  "sla_breach",
] as const;

export type AlertKind = typeof ALERT_KINDS[number];

/** What a push (and an e-mail line) carries. */
export interface AlertPayload {
  kind: AlertKind;
  title: string;
  body: string;
  conversation_id: string | null;
  url: string;
}
