/**
 * Push one alert to a set of subscriptions at once (up to PARALLEL requests
 * in flight): subscriptions the push service calls gone (404/410) are
 * deleted, refusals are logged and dropped, and what may succeed later
 * (5xx, 429, time-outs) is returned for a retry. Each endpoint passes the
 * address policy again before its request (DNS may have changed since
 * registration); a host's verdict is kept for a minute.
 */
import { recordNotification } from "../observability/metrics.ts";
import type { AppDeps } from "../deps.ts";
import { deleteSubscriptions, type StoredPushTarget } from "../../db/push_subscriptions.ts";
import { AddressRefused } from "../crawl/address_policy.ts";
import type { AlertPayload } from "./alert_kinds.ts";
import { assertPushEndpointAllowed } from "./push_address.ts";
import type { PushSender, PushTarget } from "./send_push.ts";
import { openPushKeys } from "./push_keys.ts";

const PARALLEL = 16;
const HOST_VERDICT_MS = 60_000;

export interface Deliverer {
  deliver(
    alert: AlertPayload,
    targets: StoredPushTarget[],
    signal: AbortSignal,
  ): Promise<{ delivered: number; retry: number[] }>;
}

export function createDeliverer(deps: AppDeps, sender: PushSender): Deliverer {
  const verdicts = new Map<string, { ok: boolean; until: number }>();
  const allowed = async (endpoint: string): Promise<boolean | "dns"> => {
    const url = new URL(endpoint);
    const cached = verdicts.get(url.host);
    if (cached && cached.until > Date.now()) return cached.ok;
    try {
      await assertPushEndpointAllowed(deps.config.notifications, url);
    } catch (err) {
      if (!(err instanceof AddressRefused)) return "dns"; // does not resolve now: retry
      verdicts.set(url.host, { ok: false, until: Date.now() + HOST_VERDICT_MS });
      return false;
    }
    verdicts.set(url.host, { ok: true, until: Date.now() + HOST_VERDICT_MS });
    return true;
  };

  return {
    async deliver(alert, targets, signal) {
      const payload = JSON.stringify(alert);
      const gone: number[] = [];
      const retry: number[] = [];
      let delivered = 0;
      const queue = [...targets];
      const worker = async () => {
        for (let t = queue.shift(); t; t = queue.shift()) {
          const ok = await allowed(t.endpoint);
          if (ok === "dns") {
            retry.push(t.id);
            continue;
          }
          if (!ok) {
            deps.log.warn("push endpoint refused by the address policy", { subscription: t.id });
            continue;
          }
          let target: PushTarget;
          try {
            target = {
              endpoint: t.endpoint,
              ...await openPushKeys(deps.appKey, t.keys_ciphertext),
            };
          } catch {
            // Sealed under another APP_KEY: no attempt can succeed.
            deps.log.warn("push keys unreadable (APP_KEY changed?)", { subscription: t.id });
            continue;
          }
          const outcome = await sender.send(target, payload, signal);
          recordNotification("push", outcome.kind);
          if (outcome.kind === "delivered") delivered++;
          else if (outcome.kind === "gone") gone.push(t.id);
          else if (outcome.kind === "retry") retry.push(t.id);
          else deps.log.warn("push refused", { subscription: t.id, reason: outcome.reason });
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL, targets.length) }, worker));
      if (gone.length) {
        await deleteSubscriptions(deps.sql, gone);
        deps.log.info("push subscriptions removed (gone)", { ids: gone });
      }
      return { delivered, retry: retry.sort((a, b) => a - b) };
    },
  };
}
