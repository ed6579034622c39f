/** push_subscriptions: one row per browser/app push endpoint, owned by an agent's token. */
import type { Executor } from "./client.ts";

export interface PushSubscriptionRow {
  id: number;
  user_id: number;
  endpoint: string;
  /** `{p256dh, auth}` as JSON, encrypted under APP_KEY (domain/notifications/push_keys.ts). */
  keys_ciphertext: string;
  device_name: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Register or refresh a subscription. The agent and the endpoint are the key:
 * the same agent subscribing again (new keys, a new token) updates their row;
 * another agent posting the same endpoint gets a row of their own, so a row
 * never changes hands (migration 0106).
 */
export async function upsertPushSubscription(
  sql: Executor,
  input: {
    workspaceId: number;
    userId: number;
    tokenId: number;
    endpoint: string;
    keysCiphertext: string;
    deviceName: string | null;
  },
): Promise<PushSubscriptionRow & { created: boolean }> {
  const [row] = await sql<(PushSubscriptionRow & { created: boolean })[]>`
    INSERT INTO push_subscriptions (workspace_id, user_id, token_id, endpoint, keys_ciphertext,
                                    device_name)
    VALUES (${input.workspaceId}, ${input.userId}, ${input.tokenId}, ${input.endpoint},
            ${input.keysCiphertext}, ${input.deviceName})
    ON CONFLICT (user_id, endpoint) DO UPDATE SET token_id = EXCLUDED.token_id,
      keys_ciphertext = EXCLUDED.keys_ciphertext, device_name = EXCLUDED.device_name,
      updated_at = now()
    RETURNING id, user_id, endpoint, keys_ciphertext, device_name, created_at, updated_at,
              (xmax = 0) AS created`;
  return row!;
}

/** Subscriptions of the token being logged out. */
export async function deleteSubscriptionsOfToken(sql: Executor, tokenId: number): Promise<number> {
  const rows = await sql`DELETE FROM push_subscriptions WHERE token_id = ${tokenId} RETURNING id`;
  return rows.length;
}

/** The push service said these subscriptions are gone (404/410). */
export async function deleteSubscriptions(sql: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`DELETE FROM push_subscriptions WHERE id = ANY(${sql.array(ids)}::bigint[])`;
}

/** The subscriptions of `ids` that still exist (a retry skips logged-out devices). */
export async function findSubscriptions(
  sql: Executor,
  ids: number[],
): Promise<StoredPushTarget[]> {
  if (ids.length === 0) return [];
  return await sql<StoredPushTarget[]>`
    SELECT id, endpoint, keys_ciphertext FROM push_subscriptions
     WHERE id = ANY(${sql.array(ids)}::bigint[]) AND keys_ciphertext IS NOT NULL ORDER BY id`;
}

/** A subscription as delivery reads it: its keys still sealed. */
export interface StoredPushTarget {
  id: number;
  endpoint: string;
  keys_ciphertext: string;
}

/** Keys stored in plain text before migration 0107, to encrypt at start. */
export async function listLegacyPushKeys(
  sql: Executor,
): Promise<{ id: number; p256dh: string; auth: string }[]> {
  return await sql<{ id: number; p256dh: string; auth: string }[]>`
    SELECT id, legacy_p256dh AS p256dh, legacy_auth AS auth FROM push_subscriptions
     WHERE legacy_p256dh IS NOT NULL ORDER BY id`;
}

/** Store the sealed keys and forget the plain ones, unless the row changed meanwhile. */
export async function replaceLegacyPushKeys(
  sql: Executor,
  id: number,
  plainP256dh: string,
  ciphertext: string,
): Promise<void> {
  await sql`
    UPDATE push_subscriptions
       SET keys_ciphertext = ${ciphertext}, legacy_p256dh = NULL, legacy_auth = NULL
     WHERE id = ${id} AND legacy_p256dh = ${plainP256dh}`;
}

/** A refreshed token takes over its device's subscriptions. */
export async function moveSubscriptionsToToken(
  sql: Executor,
  fromTokenId: number,
  toTokenId: number,
): Promise<void> {
  await sql`UPDATE push_subscriptions SET token_id = ${toTokenId} WHERE token_id = ${fromTokenId}`;
}
