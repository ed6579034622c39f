/** Everything a request or a worker needs, opened once by `app/services.ts`. */
import type { Database, Sql } from "../db/client.ts";
import type { Kv } from "../kv/kv.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { EventBus } from "./event_bus.ts";
import type { SocketHub } from "../domain/realtime/socket_hub.ts";
import type { VapidKeys } from "./vapid_keys.ts";

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
}
