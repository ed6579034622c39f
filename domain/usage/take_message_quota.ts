/**
 * Take one message from the workspace's monthly quota, or refuse with 429.
 * What counts: each accepted visitor message (v1 or widget), once, whether the
 * AI or a human answers it; replies do not count again (docs/v1-api.md).
 */
import type { Executor } from "../../db/client.ts";
import { incrementWithinLimit } from "../../db/usage.ts";
import { QuotaExceeded } from "../errors.ts";
import { quotaMonth, secondsUntilNextMonth } from "./quota_month.ts";

/** Returns the count used this month after taking one. Run it inside the turn's transaction. */
export async function takeMessageQuota(
  tx: Executor,
  workspaceId: number,
  now: Date,
): Promise<number> {
  const used = await incrementWithinLimit(tx, workspaceId, quotaMonth(now));
  if (used === null) throw quotaExceeded(now);
  return used;
}

/** The 429 for a workspace whose monthly messages are used up, retryable next month. */
export function quotaExceeded(now: Date): QuotaExceeded {
  return new QuotaExceeded(
    "The workspace has reached its monthly message limit.",
    secondsUntilNextMonth(now),
  );
}
