/**
 * What the domain needs from the running service, as the domain declares it:
 * `app/services.ts` opens these once and hands them to every request and
 * worker.
 */
import type { Database, Sql } from "../db/client.ts";
import type { Kv } from "../kv/kv.ts";
import type { Config } from "../app/config.ts";
import type { Logger } from "../app/logger.ts";
import type { EventBus } from "../app/event_bus.ts";
import type { SocketHub } from "./realtime/socket_hub.ts";
import type { VapidKeys } from "../app/vapid_keys.ts";
import type { ExportGate } from "./history/export_gate.ts";

export interface AppDeps {
  config: Config;
  db: Database;
  sql: Sql;
  kv: Kv;
  log: Logger;
  bus: EventBus;
  /** AES-GCM key derived from APP_KEY, for provider keys at rest. */
  appKey: CryptoKey;
  /** Injectable clock: expiry, quotas and month boundaries are testable without sleeping. */
  clock: () => Date;
  /** This instance's Pusher-protocol socket server (sockets, channels, presence). */
  realtime: SocketHub;
  /** Push signing keys; null where push is not configured (503 on registration). */
  vapid: VapidKeys | null;
  /** Requests being handled: background work on the embedded database waits for a quiet moment. */
  traffic: Traffic;
  /** This instance's CSV export slots: a cap, and turns for their batches. */
  exports: ExportGate;
}

/** app/traffic.ts: the HTTP door counts requests in and out; background work asks for quiet. */
export interface Traffic {
  enter(): void;
  leave(): void;
  /** Undefined when no request is in hand; else resolves when none is, or after `maxWaitMs`. */
  quiet(maxWaitMs: number): Promise<void> | undefined;
  /** Milliseconds since the last request was answered; 0 while one is in hand. */
  idleMs(): number;
}

/** A background worker of the domain (indexing jobs, alerts), started with the server. */
export interface Worker {
  name: string;
  stop(): Promise<void>;
}
