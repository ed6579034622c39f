/** push_subscriptions: one row per browser/app push endpoint, owned by an agent's token. */
import type { Executor } from "./client.ts";

export interface PushSubscriptionRow {
  id: number;
  user_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
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
    p256dh: string;
    auth: string;
    deviceName: string | null;
  },
): Promise<PushSubscriptionRow & { created: boolean }> {
  const [row] = await sql<(PushSubscriptionRow & { created: boolean })[]>`
    INSERT INTO push_subscriptions (workspace_id, user_id, token_id, endpoint, p256dh, auth,
                                    device_name)
    VALUES (${input.workspaceId}, ${input.userId}, ${input.tokenId}, ${input.endpoint},
            ${input.p256dh}, ${input.auth}, ${input.deviceName})
    ON CONFLICT (user_id, endpoint) DO UPDATE SET token_id = EXCLUDED.token_id,
      p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, device_name = EXCLUDED.device_name,
      updated_at = now()
    RETURNING id, user_id, endpoint, p256dh, auth, device_name, created_at, updated_at,
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
): Promise<{ id: number; endpoint: string; p256dh: string; auth: string }[]> {
  if (ids.length === 0) return [];
  return await sql<{ id: number; endpoint: string; p256dh: string; auth: string }[]>`
    SELECT id, endpoint, p256dh, auth FROM push_subscriptions
     WHERE id = ANY(${sql.array(ids)}::bigint[]) ORDER BY id`;
}

/** A refreshed token takes over its device's subscriptions. */
export async function moveSubscriptionsToToken(
  sql: Executor,
  fromTokenId: number,
  toTokenId: number,
): Promise<void> {
  await sql`UPDATE push_subscriptions SET token_id = ${toTokenId} WHERE token_id = ${fromTokenId}`;
}
