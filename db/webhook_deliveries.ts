/**
 * webhook_events, webhook_deliveries and webhook_attempts: the outbox, the
 * durable delivery jobs and their log. Claims use `FOR UPDATE SKIP LOCKED`
 * and a lease, as db/jobs.ts does, on the app's clock so retry schedules and
 * the failure window are testable without sleeping.
 */
import type { Executor } from "./client.ts";
import { conversationSnapshot } from "./webhook_payloads.ts";
import { isUuid } from "./conversations.ts";

export interface RecordedEvent {
  publicId: string;
  workspaceId: number;
  type: string;
  dedupeKey: string;
  orderingKey: string;
  /** The conversation's public id, when the event has one: its state is captured. */
  conversationId: string | null;
  source: Record<string, unknown>;
  now: Date;
}

/**
 * The event and one delivery per enabled endpoint subscribed to its type, in
 * one statement; nothing when the key is taken (another instance recorded it).
 * The same statement captures the conversation as it is now (in the caller's
 * transaction, if any), so the payload is fixed here, not at the first
 * attempt, at the cost of a lookup by unique key and no extra round trip; a
 * workspace without a subscribed endpoint writes nothing and looks nothing up.
 * Returns the number of deliveries created.
 */
/** The event's conversation still exists (an event of no conversation always records). */
function stillThere(sql: Executor, conversationId: string | null) {
  if (conversationId === null || !isUuid(conversationId)) return sql``;
  return sql`AND EXISTS (SELECT 1 FROM conversations WHERE public_id = ${conversationId}::uuid)`;
}

export async function recordEvent(sql: Executor, e: RecordedEvent): Promise<number> {
  const rows = await sql`
    WITH event AS (
      INSERT INTO webhook_events (public_id, workspace_id, type, dedupe_key, source,
                                  conversation, created_at)
      SELECT ${e.publicId}, ${e.workspaceId}, ${e.type}, ${e.dedupeKey},
             ${sql.json(e.source as never)},
             ${conversationSnapshot(sql, e.workspaceId, e.conversationId)}, ${e.now}
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints
                      WHERE workspace_id = ${e.workspaceId} AND enabled AND ${e.type} = ANY(events))
         -- An event of a conversation erased meanwhile is not recorded: it
         -- would bring what it held back (docs/data-protection.md).
         ${stillThere(sql, e.conversationId)}
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id)
    INSERT INTO webhook_deliveries (workspace_id, event_id, endpoint_id, ordering_key,
                                    next_attempt_at, window_started_at, created_at, updated_at)
    SELECT ${e.workspaceId}, event.id, ep.id, ${e.orderingKey}, ${e.now}, ${e.now}, ${e.now},
           ${e.now}
      FROM event JOIN webhook_endpoints ep
        ON ep.workspace_id = ${e.workspaceId} AND ep.enabled AND ${e.type} = ANY(ep.events)
    RETURNING id`;
  return rows.length;
}

/**
 * A `ping` event for one endpoint only, whatever it subscribes to (the
 * dashboard's "Send test event"): the event and its single delivery in one
 * statement, nothing when the endpoint is not this workspace's. Its ordering
 * key is its own, so it never waits behind a conversation's events. Returns
 * the delivery's id, or null.
 */
export async function recordPing(
  sql: Executor,
  e: { publicId: string; workspaceId: number; endpointId: number; dedupeKey: string; now: Date },
): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`
    WITH event AS (
      INSERT INTO webhook_events (public_id, workspace_id, type, dedupe_key, source, created_at)
      SELECT ${e.publicId}, ${e.workspaceId}, 'ping', ${e.dedupeKey},
             ${sql.json({ endpointId: e.endpointId } as never)}, ${e.now}
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints
                      WHERE workspace_id = ${e.workspaceId} AND id = ${e.endpointId})
      RETURNING id)
    INSERT INTO webhook_deliveries (workspace_id, event_id, endpoint_id, ordering_key,
                                    next_attempt_at, window_started_at, created_at, updated_at)
    SELECT ${e.workspaceId}, event.id, ${e.endpointId}, ${e.dedupeKey}, ${e.now}, ${e.now},
           ${e.now}, ${e.now}
      FROM event
    RETURNING id`;
  return row ? Number(row.id) : null;
}

export interface ClaimedDelivery {
  id: number;
  workspace_id: number;
  endpoint_id: number;
  event_id: number;
  attempts: number;
  window_started_at: Date;
  event_public_id: string;
  event_type: string;
  event_source: Record<string, unknown>;
  /** The conversation when the event was recorded; null for older rows (or none). */
  event_conversation: Record<string, unknown> | null;
  event_body: string | null;
  event_created_at: Date;
  url: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_expires_at: Date | null;
  /** Null while the endpoint is healthy: a success then has nothing to clear. */
  failing_since: Date | null;
}

/**
 * Take up to `limit` due deliveries of enabled endpoints: pending, their time
 * come, not leased (or the lease ran out: its worker died), and no earlier
 * event of the same conversation still pending for the same endpoint.
 */
export async function claimDeliveries(
  sql: Executor,
  workerId: string,
  now: Date,
  leaseSeconds: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const leaseUntil = new Date(now.getTime() + leaseSeconds * 1000);
  return await sql<ClaimedDelivery[]>`
    WITH claimed AS (
      UPDATE webhook_deliveries d SET locked_by = ${workerId}, locked_until = ${leaseUntil},
             attempts = d.attempts + 1, updated_at = ${now}
       WHERE d.id IN (
         SELECT c.id FROM webhook_deliveries c
           JOIN webhook_endpoints ep ON ep.id = c.endpoint_id AND ep.enabled
          WHERE c.status = 'pending' AND c.next_attempt_at <= ${now}
            AND (c.locked_until IS NULL OR c.locked_until < ${now})
            AND NOT EXISTS (
              SELECT 1 FROM webhook_deliveries p
               WHERE p.endpoint_id = c.endpoint_id AND p.ordering_key = c.ordering_key
                 AND p.status = 'pending' AND p.event_id < c.event_id)
          ORDER BY c.next_attempt_at, c.id
          LIMIT ${limit}
          FOR UPDATE OF c SKIP LOCKED)
      RETURNING d.*)
    SELECT c.id, c.workspace_id, c.endpoint_id, c.event_id, c.attempts, c.window_started_at,
           e.public_id AS event_public_id, e.type AS event_type, e.source AS event_source,
           e.conversation AS event_conversation, e.body AS event_body,
           e.created_at AS event_created_at, ep.url, ep.secret_encrypted,
           ep.previous_secret_encrypted, ep.previous_expires_at, ep.failing_since
      FROM claimed c JOIN webhook_events e ON e.id = c.event_id
      JOIN webhook_endpoints ep ON ep.id = c.endpoint_id
     ORDER BY c.next_attempt_at, c.id`;
}

/** Keep the lease of a delivery still held by `workerId`; false when it was lost. */
export async function extendDeliveryLease(
  sql: Executor,
  id: number,
  workerId: string,
  until: Date,
): Promise<boolean> {
  const rows = await sql`
    UPDATE webhook_deliveries SET locked_until = ${until}
     WHERE id = ${id} AND locked_by = ${workerId} AND status = 'pending' RETURNING id`;
  return rows.length > 0;
}

/** Keep the body the first attempt rendered: every later attempt sends these bytes. */
export async function storeEventBody(
  sql: Executor,
  eventId: number,
  body: string,
): Promise<string> {
  const [row] = await sql<{ body: string }[]>`
    UPDATE webhook_events SET body = COALESCE(body, ${body}) WHERE id = ${eventId} RETURNING body`;
  return row?.body ?? body;
}

export interface AttemptRecord {
  deliveryId: number;
  workerId: string;
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  outcome: "succeeded" | "retry" | "failed";
  /** When the next attempt is due (outcome `retry`). */
  nextAttemptAt?: Date;
}

/** Log the attempt and settle the delivery, unless its lease was lost meanwhile. */
export async function recordAttempt(sql: Executor, a: AttemptRecord): Promise<boolean> {
  const status = a.outcome === "retry" ? "pending" : a.outcome;
  const rows = await sql`
    WITH settled AS (
      UPDATE webhook_deliveries SET status = ${status},
             next_attempt_at = COALESCE(${a.nextAttemptAt ?? null}::timestamptz, next_attempt_at),
             locked_by = NULL, locked_until = NULL, last_status = ${a.statusCode},
             last_error = ${a.error}, updated_at = ${a.at}
       WHERE id = ${a.deliveryId} AND locked_by = ${a.workerId}
      RETURNING id)
    INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms,
                                  response_excerpt, error, outcome)
    SELECT id, ${a.attempt}, ${a.at}, ${a.statusCode}, ${a.durationMs}, ${a.responseExcerpt},
           ${a.error}, ${a.outcome}
      FROM settled
    RETURNING id`;
  return rows.length > 0;
}

/** Hand a delivery back on shutdown: due at once, the interrupted attempt not counted. */
export async function releaseDelivery(sql: Executor, id: number, workerId: string): Promise<void> {
  await sql`
    UPDATE webhook_deliveries SET locked_by = NULL, locked_until = NULL,
           attempts = GREATEST(attempts - 1, 0)
     WHERE id = ${id} AND locked_by = ${workerId} AND status = 'pending'`;
}

export interface DeliveryView {
  id: number;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
}

export async function listDeliveries(
  sql: Executor,
  workspaceId: number,
  endpointId: number,
  limit: number,
): Promise<DeliveryView[]> {
  return await sql<DeliveryView[]>`
    SELECT d.id, d.endpoint_id, e.public_id AS event_id, e.type AS event_type, d.status,
           d.attempts, CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS next_attempt_at,
           d.last_status, d.last_error, d.created_at
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.workspace_id = ${workspaceId} AND d.endpoint_id = ${endpointId}
     ORDER BY d.id DESC LIMIT ${limit}`;
}

export interface AttemptView {
  delivery_id: number;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  outcome: string;
}

/** The attempts of the given deliveries, oldest first: one query for a whole page. */
export async function listAttempts(sql: Executor, deliveryIds: number[]): Promise<AttemptView[]> {
  if (deliveryIds.length === 0) return [];
  return await sql<AttemptView[]>`
    SELECT delivery_id, attempt, attempted_at, status_code, duration_ms, response_excerpt, error,
           outcome
      FROM webhook_attempts WHERE delivery_id = ANY(${sql.array(deliveryIds)}::bigint[])
     ORDER BY delivery_id, id`;
}

/** Send again now, with a fresh retry window; false for an unknown or in-flight delivery. */
export async function redeliver(
  sql: Executor,
  workspaceId: number,
  endpointId: number,
  deliveryId: number,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${now},
           window_started_at = ${now}, updated_at = ${now}
     WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId} AND id = ${deliveryId}
       AND (status <> 'pending' OR locked_until IS NULL OR locked_until < ${now})
    RETURNING id`;
  return rows.length > 0;
}

export async function deliveryExists(
  sql: Executor,
  workspaceId: number,
  endpointId: number,
  deliveryId: number,
): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM webhook_deliveries
     WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId} AND id = ${deliveryId}`;
  return rows.length > 0;
}

/** Forget attempts, and settled deliveries with their events, older than `days`. */
export async function purgeOldWebhookRows(sql: Executor, now: Date, days: number): Promise<void> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  await sql`DELETE FROM webhook_attempts WHERE attempted_at < ${cutoff}`;
  await sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ${cutoff}`;
  await sql`
    DELETE FROM webhook_events e WHERE e.created_at < ${cutoff}
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`;
}
