/**
 * The `push_delivery` job: the pushes of one alert that failed for now.
 * Subscriptions deleted meanwhile (logout, 410) are skipped; after each
 * attempt the payload is narrowed to what still failed and the runner
 * retries that with backoff, until it gives up.
 */
import type { AppDeps } from "../deps.ts";
import { updateJobPayload } from "../../db/jobs.ts";
import { findSubscriptions } from "../../db/push_subscriptions.ts";
import type { JobHandler } from "../jobs/job_runner.ts";
import type { PushDeliveryPayload } from "./alert_jobs.ts";
import type { Deliverer } from "./deliver_pushes.ts";

export function pushDeliveryJob(deliverer: Deliverer): JobHandler {
  return {
    async run(deps: AppDeps, raw, ctx) {
      const job = raw as unknown as PushDeliveryPayload;
      const targets = await findSubscriptions(deps.sql, job.subscriptionIds);
      if (targets.length === 0) return;
      const { retry } = await deliverer.deliver(job.alert, targets, ctx.signal);
      if (retry.length === 0) return;
      await updateJobPayload(deps.sql, ctx.jobId, { ...job, subscriptionIds: retry });
      throw new Error(`${retry.length} push service(s) unavailable`);
    },
    onGiveUp(deps, raw, reason) {
      deps.log.warn("push not delivered", { subscriptions: raw.subscriptionIds, reason });
      return Promise.resolve();
    },
  };
}
