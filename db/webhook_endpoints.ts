/** webhook_endpoints: a workspace's webhook receivers, their subscriptions and secrets. */
import type { Executor } from "./client.ts";

export interface WebhookEndpointRow {
  id: number;
  workspace_id: number;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewEndpoint {
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  secretEncrypted: string;
  now: Date;
}

export async function insertEndpoint(
  sql: Executor,
  workspaceId: number,
  e: NewEndpoint,
): Promise<WebhookEndpointRow> {
  const [row] = await sql<WebhookEndpointRow[]>`
    INSERT INTO webhook_endpoints (workspace_id, url, description, events, enabled,
                                   secret_encrypted, created_at, updated_at)
    VALUES (${workspaceId}, ${e.url}, ${e.description}, ${sql.array(e.events)}::text[],
            ${e.enabled}, ${e.secretEncrypted}, ${e.now}, ${e.now})
    RETURNING *`;
  return row!;
}

export async function listEndpoints(
  sql: Executor,
  workspaceId: number,
): Promise<WebhookEndpointRow[]> {
  return await sql<WebhookEndpointRow[]>`
    SELECT * FROM webhook_endpoints WHERE workspace_id = ${workspaceId} ORDER BY id`;
}

export async function findEndpoint(
  sql: Executor,
  workspaceId: number,
  id: number,
  opts: { forUpdate?: boolean } = {},
): Promise<WebhookEndpointRow | null> {
  const lock = opts.forUpdate ? sql`FOR UPDATE` : sql``;
  const [row] = await sql<WebhookEndpointRow[]>`
    SELECT * FROM webhook_endpoints WHERE workspace_id = ${workspaceId} AND id = ${id} ${lock}`;
  return row ?? null;
}

export interface EndpointPatch {
  url?: string;
  description?: string;
  events?: string[];
  enabled?: boolean;
}

/** Re-enabling clears the failure record: the endpoint gets a fresh day. */
export async function updateEndpoint(
  sql: Executor,
  workspaceId: number,
  id: number,
  patch: EndpointPatch,
  now: Date,
): Promise<WebhookEndpointRow | null> {
  const [row] = await sql<WebhookEndpointRow[]>`
    UPDATE webhook_endpoints SET
      url = COALESCE(${patch.url ?? null}, url),
      description = COALESCE(${patch.description ?? null}, description),
      events = COALESCE(${patch.events ? sql.array(patch.events) : null}::text[], events),
      enabled = COALESCE(${patch.enabled ?? null}, enabled),
      disabled_reason = CASE WHEN ${patch.enabled === true} THEN NULL ELSE disabled_reason END,
      failing_since = CASE WHEN ${patch.enabled === true} THEN NULL ELSE failing_since END,
      updated_at = ${now}
    WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING *`;
  return row ?? null;
}

export async function deleteEndpoint(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<boolean> {
  const rows = await sql`
    DELETE FROM webhook_endpoints WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`;
  return rows.length > 0;
}

/** A new secret; the current one keeps signing until `previousExpiresAt`. */
export async function rotateEndpointSecret(
  sql: Executor,
  workspaceId: number,
  id: number,
  secretEncrypted: string,
  previousExpiresAt: Date,
  now: Date,
): Promise<WebhookEndpointRow | null> {
  const [row] = await sql<WebhookEndpointRow[]>`
    UPDATE webhook_endpoints SET previous_secret_encrypted = secret_encrypted,
           previous_expires_at = ${previousExpiresAt}, secret_encrypted = ${secretEncrypted},
           updated_at = ${now}
     WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING *`;
  return row ?? null;
}

/** The event kinds the workspace's enabled endpoints subscribe to (the recorder's gate). */
export async function subscribedKinds(sql: Executor, workspaceId: number): Promise<string[]> {
  const rows = await sql<{ kind: string }[]>`
    SELECT DISTINCT unnest(events) AS kind FROM webhook_endpoints
     WHERE workspace_id = ${workspaceId} AND enabled`;
  return rows.map((r) => r.kind);
}

/** A failed attempt: start the failure clock if it is not running. Returns when it started. */
export async function markEndpointFailing(
  sql: Executor,
  id: number,
  now: Date,
): Promise<Date> {
  const [row] = await sql<{ failing_since: Date }[]>`
    UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ${now})
     WHERE id = ${id} RETURNING failing_since`;
  return row?.failing_since ?? now;
}

export async function markEndpointHealthy(sql: Executor, id: number): Promise<void> {
  await sql`UPDATE webhook_endpoints SET failing_since = NULL
             WHERE id = ${id} AND failing_since IS NOT NULL`;
}

/** Disable once: true only for the call that switched it off (one e-mail). */
export async function disableEndpoint(
  sql: Executor,
  id: number,
  reason: string,
  now: Date,
): Promise<WebhookEndpointRow | null> {
  const [row] = await sql<WebhookEndpointRow[]>`
    UPDATE webhook_endpoints SET enabled = false, disabled_reason = ${reason}, updated_at = ${now}
     WHERE id = ${id} AND enabled RETURNING *`;
  return row ?? null;
}

/** Where to tell a workspace that an endpoint was switched off: its active owners and administrators. */
export async function workspaceAdminEmails(sql: Executor, workspaceId: number): Promise<string[]> {
  const rows = await sql<{ email: string }[]>`
    SELECT email FROM users
     WHERE workspace_id = ${workspaceId} AND role IN ('owner', 'administrator') AND NOT suspended
     ORDER BY id`;
  return rows.map((r) => r.email);
}
