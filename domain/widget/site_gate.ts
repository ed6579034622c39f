/**
 * The widget endpoints' site check (docs/widget-api.md#allowed-sites): a
 * browser request from a page whose origin is not among the bot's allowed
 * sites is refused before any endpoint runs, so a copied snippet spends no
 * quota and starts no conversation.
 *
 * Each instance keeps every bot's list it has read, by public key, so the
 * visitor's path pays one indexed read per bot and minute at most; a change
 * of a list (`chatbot.sites_changed`) drops that bot's copy on every
 * instance at once. Concurrent first requests share one read.
 */
import type { AppDeps } from "../deps.ts";
import { findAllowedSites } from "../../db/widget_sites.ts";
import { originAllowed } from "./site_rules.ts";

/** How long a list is used before it is read again (changes arrive by event before that). */
export const SITE_LIST_TTL_MS = 60_000;
/** Bots' lists kept per instance; the oldest goes first. */
const MAX_KEPT = 10_000;

interface Kept {
  sites: readonly string[] | Promise<readonly string[]>;
  readAt: number;
}

export interface SiteGate {
  /** Whether `origin` may use the widget of the bot `publicKey` (a promise on a cold read). */
  allows(publicKey: string, origin: string): boolean | Promise<boolean>;
  /** Lists kept (for the bench and tests that check the map stays bounded). */
  readonly size: number;
}

const byServer = new WeakMap<object, SiteGate>();

export function siteGate(deps: Pick<AppDeps, "sql" | "bus">): SiteGate {
  let gate = byServer.get(deps.sql);
  if (!gate) {
    const kept = new Map<string, Kept>();
    void deps.bus.on((event) => {
      if (event.type === "chatbot.sites_changed") kept.delete(event.publicKey as string);
    });
    gate = {
      get size() {
        return kept.size;
      },
      allows(publicKey, origin) {
        const now = Date.now();
        let entry = kept.get(publicKey);
        if (entry && now - entry.readAt > SITE_LIST_TTL_MS) entry = undefined;
        if (!entry) {
          const read = findAllowedSites(deps.sql, publicKey);
          entry = { sites: read, readAt: now };
          remember(kept, publicKey, entry);
          read.then(
            (sites) => {
              if (kept.get(publicKey) === entry) entry!.sites = sites;
            },
            () => {
              if (kept.get(publicKey) === entry) kept.delete(publicKey);
            },
          );
        }
        const sites = entry.sites;
        return Array.isArray(sites)
          ? originAllowed(sites, origin)
          : (sites as Promise<readonly string[]>).then((s) => originAllowed(s, origin));
      },
    };
    byServer.set(deps.sql, gate);
  }
  return gate;
}

function remember(kept: Map<string, Kept>, key: string, entry: Kept): void {
  kept.delete(key); // re-inserted last: the map's order is the copies' age
  kept.set(key, entry);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
}
