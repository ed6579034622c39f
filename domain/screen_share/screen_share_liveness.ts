/**
 * Whether a shared page is still there. Every batch the widget sends (at
 * least one every KEEPALIVE_SECONDS, empty when nothing changed) marks its
 * share as seen in the Kv (Redis with REDIS_URL, so any instance may receive
 * it); a share not seen for SCREEN_SHARE_IDLE_SECONDS ends as `left`: the
 * tab was closed without its goodbye beacon, or the connection was lost.
 */
import type { Kv } from "../../kv/kv.ts";

/** How often the widget sends a batch, empty or not (widget/screen/recorder.ts). */
export const KEEPALIVE_SECONDS = 15;

const seenKey = (shareId: number) => `screenseen:${shareId}`;

export async function markShareSeen(kv: Kv, shareId: number, idleSeconds: number): Promise<void> {
  await kv.setCached(seenKey(shareId), "1", idleSeconds * 1000);
}

export async function shareSeenLately(kv: Kv, shareId: number): Promise<boolean> {
  return (await kv.getCached(seenKey(shareId))) !== null;
}
