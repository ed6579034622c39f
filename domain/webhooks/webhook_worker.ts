/**
 * The webhook worker started with the server (app/workers.ts): the event
 * recorder on the bus, and a delivery loop claiming due deliveries with
 * leases (SKIP LOCKED), so several instances deliver each one once between
 * them and a dead instance's delivery is sent again, under the same
 * webhook-id, once its lease runs out. Woken by new events, by redelivery
 * requests from any instance (Kv channel), and by a poll.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import type { Unsubscribe } from "../../kv/kv.ts";
import {
  claimDeliveries,
  type ClaimedDelivery,
  extendDeliveryLease,
  purgeOldWebhookRows,
  releaseDelivery,
} from "../../db/webhook_deliveries.ts";
import { createMailSender } from "../notifications/mail_sender.ts";
import type { MailSender } from "../notifications/email_digest_job.ts";
import { createEventRecorder } from "./event_recorder.ts";
import { deliverOne, type Pace } from "./deliver_one.ts";
import { WEBHOOKS_CHANNEL } from "./wake.ts";
import { sweepMissedEvents } from "./sweep_missed_events.ts";

/** Attempts and settled deliveries are kept this long. */
export const WEBHOOK_LOG_DAYS = 30;

/**
 * Embedded, the longest a delivery statement waits for a moment with no
 * request in hand: under unbroken traffic deliveries still move, a step at a
 * time.
 */
const QUIET_MAX_WAIT_MS = 250;

/**
 * Embedded, wake-ups (a new event, a finished delivery) within this long
 * share one claim: one statement for a burst of replies' events instead of
 * one, plus an empty one, per event.
 */
const COALESCE_MS = 25;

export function startWebhookWorker(deps: AppDeps): Worker {
  const cfg = deps.config.webhooks;
  const workerId = `${Deno.hostname()}:${Deno.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const running = new Map<number, { abort: AbortController; done: Promise<void> }>();
  const mailer: MailSender | null = deps.config.notifications.smtpUrl
    ? createMailSender(deps.config.notifications.smtpUrl, deps.config.notifications.mailFrom)
    : null;
  const unsubscribes: Unsubscribe[] = [];
  // The embedded database is one connection: a delivery statement queued in
  // front of a request's would sit on its reply, so each waits for a quiet
  // moment (app/traffic.ts). PostgreSQL has a pool: no waiting.
  const pace: Pace = deps.db.embedded
    ? () => deps.traffic.quiet(QUIET_MAX_WAIT_MS)
    : () => undefined;
  let stopping = false;
  let claiming = false;
  let again = false;
  let scheduled: ReturnType<typeof setTimeout> | null = null;
  /** Claim soon: at once on PostgreSQL, after COALESCE_MS embedded. */
  const wake = () => {
    if (!deps.db.embedded) return void fill();
    scheduled ??= setTimeout(() => {
      scheduled = null;
      void fill();
    }, COALESCE_MS);
  };

  const execute = async (d: ClaimedDelivery, abort: AbortController) => {
    const keepAlive = setInterval(() => {
      const until = new Date(deps.clock().getTime() + cfg.leaseSeconds * 1000);
      extendDeliveryLease(deps.sql, d.id, workerId, until)
        .then((held) => held || abort.abort(new Error("lease lost")))
        .catch(() => {});
    }, (cfg.leaseSeconds * 1000) / 3);
    try {
      await deliverOne(deps, d, workerId, abort.signal, mailer, pace);
    } catch (err) {
      if (abort.signal.aborted) {
        if (stopping) await releaseDelivery(deps.sql, d.id, workerId).catch(() => {});
        return;
      }
      // Not settled: the lease runs out and the delivery is tried again.
      deps.log.error("webhook delivery failed", { id: d.id, ...describeError(err) });
    } finally {
      clearInterval(keepAlive);
    }
  };

  const fill = async () => {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        const room = cfg.concurrency - running.size;
        if (stopping || room <= 0) break;
        await pace();
        const claimed = await claimDeliveries(
          deps.sql,
          workerId,
          deps.clock(),
          cfg.leaseSeconds,
          room,
        );
        for (const d of claimed) {
          const entry = { abort: new AbortController(), done: Promise.resolve() };
          entry.done = execute(d, entry.abort).finally(() => {
            running.delete(d.id);
            if (!stopping) wake();
          });
          running.set(d.id, entry);
        }
        if (claimed.length === room) again = true;
      } while (again && !stopping);
    } catch (err) {
      if (!stopping) deps.log.warn("webhook claim failed", describeError(err));
    } finally {
      claiming = false;
    }
  };

  const recorder = createEventRecorder(deps, wake);
  deps.bus.on(recorder).then((u) => stopping ? void u() : unsubscribes.push(u))
    .catch((err) => deps.log.error("webhook events not recorded", describeError(err)));
  if (cfg.concurrency === 0) {
    return {
      name: "webhooks",
      async stop() {
        stopping = true;
        await Promise.all(unsubscribes.map((u) => u()));
      },
    };
  }
  deps.kv.subscribe(WEBHOOKS_CHANNEL, wake)
    .then((u) => stopping ? void u() : unsubscribes.push(u))
    .catch((err) =>
      deps.log.warn("webhook wake-ups unavailable; polling only", describeError(err))
    );
  const timer = setInterval(() => void fill(), cfg.pollMs);
  const purger = setInterval(() => {
    purgeOldWebhookRows(deps.sql, deps.clock(), WEBHOOK_LOG_DAYS).catch(() => {});
  }, 3_600_000);
  let sweeping = false;
  const sweep = () => {
    if (sweeping || stopping) return;
    sweeping = true;
    sweepMissedEvents(deps)
      .then((n) => {
        if (n === 0) return;
        deps.log.warn("webhook events recovered by the sweep", { n });
        void fill();
      })
      .catch((err) => deps.log.warn("webhook sweep failed", describeError(err)))
      .finally(() => sweeping = false);
  };
  const sweeper = setInterval(sweep, cfg.sweepSeconds * 1000);
  sweep();
  void fill();
  return {
    name: "webhooks",
    async stop() {
      stopping = true;
      if (scheduled !== null) clearTimeout(scheduled);
      clearInterval(timer);
      clearInterval(purger);
      clearInterval(sweeper);
      while (sweeping) await new Promise((r) => setTimeout(r, 10));
      await Promise.all(unsubscribes.map((u) => u()));
      while (claiming) await new Promise((r) => setTimeout(r, 10));
      for (const r of running.values()) r.abort.abort(new Error("shutting down"));
      await Promise.all([...running.values()].map((r) => r.done));
      mailer?.close();
    },
  };
}
