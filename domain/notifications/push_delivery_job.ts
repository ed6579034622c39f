/**
 * The `push_delivery` job: one alert to one subscription. A push service
 * answering 404 or 410 means the browser dropped the subscription: the row
 * is deleted. 5xx, 429 and time-outs retry with backoff (the job runner's);
 * other refusals give up at once. The endpoint passes the address policy
 * again before each request (DNS may have changed since registration).
 */
import type { AppDeps } from "../../app/deps.ts";
import { deleteSubscription, findSubscription } from "../../db/push_subscriptions.ts";
import { AddressRefused } from "../crawl/address_policy.ts";
import { type JobHandler, PermanentJobError } from "../jobs/job_runner.ts";
import type { PushDeliveryPayload } from "./alert_jobs.ts";
import { assertPushEndpointAllowed } from "./push_address.ts";
import type { PushSender } from "./send_push.ts";

export function pushDeliveryJob(sender: PushSender): JobHandler {
  return {
    async run(deps: AppDeps, raw, ctx) {
      const job = raw as unknown as PushDeliveryPayload;
      const sub = await findSubscription(deps.sql, job.subscriptionId);
      if (!sub) return; // logged out or expired meanwhile
      try {
        await assertPushEndpointAllowed(deps.config.notifications, new URL(sub.endpoint));
      } catch (err) {
        if (err instanceof AddressRefused) throw new PermanentJobError(err.message);
        throw err;
      }
      const outcome = await sender.send(sub, JSON.stringify(job.alert), ctx.signal);
      switch (outcome.kind) {
        case "delivered":
          return;
        case "gone":
          await deleteSubscription(deps.sql, sub.id);
          deps.log.info("push subscription removed", { id: sub.id, status: outcome.status });
          return;
        case "retry":
          throw new Error(outcome.reason);
        case "refused":
          throw new PermanentJobError(outcome.reason);
      }
    },
    onGiveUp(deps, raw, reason) {
      deps.log.warn("push not delivered", { subscription: Number(raw.subscriptionId), reason });
      return Promise.resolve();
    },
  };
}
