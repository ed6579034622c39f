/** An endpoint's latest deliveries, newest first, each with its attempts (two queries a page). */
import type { AppDeps } from "../deps.ts";
import { findEndpoint } from "../../db/webhook_endpoints.ts";
import { listAttempts, listDeliveries as listRows } from "../../db/webhook_deliveries.ts";
import { NotFound } from "../errors.ts";

export interface AttemptOut {
  attempt: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  outcome: "succeeded" | "retry" | "failed";
}

export interface DeliveryOut {
  id: number;
  event_id: string;
  event_type: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  attempt_log: AttemptOut[];
}

export async function listDeliveries(
  deps: AppDeps,
  workspaceId: number,
  endpointId: number,
  limit: number,
): Promise<DeliveryOut[]> {
  if (!await findEndpoint(deps.sql, workspaceId, endpointId)) {
    throw new NotFound("Webhook endpoint not found.");
  }
  const rows = await listRows(deps.sql, workspaceId, endpointId, limit);
  const attempts = await listAttempts(deps.sql, rows.map((r) => r.id));
  const byDelivery = Map.groupBy(attempts, (a) => Number(a.delivery_id));
  return rows.map((r) => ({
    id: Number(r.id),
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status as DeliveryOut["status"],
    attempts: r.attempts,
    next_attempt_at: r.next_attempt_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    attempt_log: (byDelivery.get(Number(r.id)) ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.attempted_at.toISOString(),
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      response_excerpt: a.response_excerpt,
      error: a.error,
      outcome: a.outcome as AttemptOut["outcome"],
    })),
  }));
}
