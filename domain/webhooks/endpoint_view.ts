/** An endpoint as the API shows it: never its secret, which is shown once when issued. */
import type { WebhookEndpointRow } from "../../db/webhook_endpoints.ts";

export interface EndpointView {
  id: number;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  /** Until when the previous secret still signs, after a rotation; null otherwise. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function endpointView(row: WebhookEndpointRow, now: Date): EndpointView {
  const overlap = row.previous_expires_at && row.previous_expires_at > now
    ? row.previous_expires_at.toISOString()
    : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at: overlap,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
