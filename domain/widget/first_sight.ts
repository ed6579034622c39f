/**
 * Whether a widget message's idempotency key is new to every instance: a
 * marker in the shared Kv (Redis when configured), kept for FIRST_SIGHT_TTL_MS.
 * A retry of a message (the same `client_id`) is not new, so it never starts a
 * provider call from a kept bot copy (known_bot_turn.ts) before the database
 * has said the message is already stored: a retry costs no provider call. A
 * Kv that cannot answer counts as "seen", which sends the message the full way.
 */
import type { Kv } from "../../kv/kv.ts";

/** How long a key is remembered; a retry after that may start one call that is then cancelled. */
export const FIRST_SIGHT_TTL_MS = 10 * 60_000;

export function firstSight(kv: Kv, botKey: string, clientId: string | undefined): Promise<boolean> {
  if (!clientId) return Promise.resolve(true);
  return kv.acquire(`first-sight:${botKey}:${clientId}`, FIRST_SIGHT_TTL_MS).catch(() => false);
}
