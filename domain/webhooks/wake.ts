/** Tell every instance's webhook worker that deliveries are due, so none waits for its poll. */
import type { AppDeps } from "../deps.ts";

export const WEBHOOKS_CHANNEL = "webhooks:due";

export async function wakeWebhookWorkers(deps: Pick<AppDeps, "kv">): Promise<void> {
  await deps.kv.publish(WEBHOOKS_CHANNEL, "1").catch(() => {});
}
