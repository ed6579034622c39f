/**
 * Opens everything the server needs, in order: data dir, database (embedded
 * or DATABASE_URL), migrations, Kv (Redis or in-process), keys, seed, demo.
 */
import { createTraffic } from "./traffic.ts";
import {
  createExportGate,
  EXPORT_PACING,
  EXPORTS_PER_INSTANCE,
} from "../domain/history/export_gate.ts";
import type { Config } from "./config.ts";
import type { AppDeps } from "../domain/deps.ts";
import { createLogger } from "./logger.ts";
import { resolveAppKey } from "./app_key.ts";
import { resolveVapidKeys } from "./vapid_keys.ts";
import { createEventBus } from "./event_bus.ts";
import { traceQueries } from "../domain/observability/traced_queries.ts";
import { type Database, openDatabase } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { createMemoryKv } from "../kv/memory_kv.ts";
import { createRedisKv } from "../kv/redis_kv.ts";
import { importAppKey } from "../domain/auth/secrets.ts";
import { SocketHub } from "../domain/realtime/socket_hub.ts";
import { recheckSubscriptions } from "../domain/realtime/subscription_recheck.ts";
import { deriveRealtimeSecret } from "../domain/realtime/pusher_signature.ts";
import { applySeed } from "../domain/seed/apply_seed.ts";
import { encryptLegacyIdentitySecrets } from "../domain/auth/identity_secret.ts";
import { encryptLegacyPushKeys } from "../domain/notifications/push_keys.ts";
import { type DemoCredentials, ensureDemo } from "../domain/seed/demo_seed.ts";

export interface Services {
  deps: AppDeps;
  demo: DemoCredentials | null;
  close(): Promise<void>;
}

export async function openServices(config: Config, clock: () => Date = () => new Date()): Promise<
  Services
> {
  const log = createLogger(config.logLevel);
  await Deno.mkdir(config.dataDir, { recursive: true });
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  traceQueries(db.sql); // with OTEL_DENO only: statements as spans (docs/operations.md)
  let realtime: SocketHub | null = null;
  try {
    const { applied, vector } = await migrate(db.sql);
    db.vector = vector;
    if (applied.length) log.info("migrations applied", { applied });
    const kv = config.redisUrl
      ? await createRedisKv(config.redisUrl, config.redisPrefix)
      : createMemoryKv();
    const rawAppKey = await resolveAppKey(config.appKey, config.dataDir);
    const appKey = await importAppKey(rawAppKey);
    realtime = new SocketHub({
      creds: {
        key: config.realtimeKey,
        secret: config.realtimeSecret ?? deriveRealtimeSecret(rawAppKey),
      },
      activityTimeout: config.realtimeActivityTimeout,
      // With Redis, client events and presence are shared by every instance.
      kv: config.redisUrl ? kv : null,
      grants: kv,
      recheck: (held) => recheckSubscriptions(db.sql, held, clock()),
      recheckMs: config.realtimeRecheckSeconds * 1000,
      log,
    });
    await realtime.start();
    const traffic = createTraffic();
    const deps: AppDeps = {
      config,
      db,
      sql: db.sql,
      kv,
      log,
      bus: createEventBus(kv),
      appKey,
      clock,
      realtime,
      vapid: await resolveVapidKeys(config.notifications, config.dataDir),
      traffic,
      exports: createExportGate({
        limit: EXPORTS_PER_INSTANCE,
        traffic,
        pacing: EXPORT_PACING,
      }),
    };
    await withStartupLock(db, config.databasePoolSize, async () => {
      const encrypted = await encryptLegacyIdentitySecrets({ sql: db.sql, appKey });
      if (encrypted) log.info("identity secrets encrypted at rest", { workspaces: encrypted });
      const pushKeys = await encryptLegacyPushKeys({ sql: db.sql, appKey });
      if (pushKeys) log.info("push subscription keys encrypted at rest", { rows: pushKeys });
      if (!config.seedFile) return;
      const raw = JSON.parse(await Deno.readTextFile(config.seedFile));
      const report = await applySeed({ sql: db.sql, appKey, now: clock() }, raw);
      log.info("seed applied", { file: config.seedFile, workspaces: report.workspaces.length });
    });
    const demo = config.demo
      ? await withStartupLock(
        db,
        config.databasePoolSize,
        () => ensureDemo({ sql: db.sql, appKey, now: clock() }),
      )
      : null;
    return {
      deps,
      demo,
      close: async () => {
        await realtime!.stop();
        await kv.close();
        await db.close();
      },
    };
  } catch (err) {
    await realtime?.stop().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
}

const STARTUP_LOCK_ID = 7_241_003;

/**
 * Seeding runs once at a time across instances sharing one PostgreSQL: two
 * servers started together would otherwise both insert the same seeded user
 * and one would die on the unique key. A session lock on a reserved
 * connection, so the seed's own transactions use the pool meanwhile. The
 * embedded database belongs to one process (locked in db/embedded.ts).
 */
async function withStartupLock<T>(
  db: Database,
  poolSize: number,
  fn: () => Promise<T>,
): Promise<T> {
  if (db.embedded) return await fn();
  // With a pool of one, every query runs on that one connection, so the session
  // lock is taken and released there; reserving it would leave none for `fn`.
  const conn = poolSize > 1 ? await db.sql.reserve() : null;
  const on = conn ?? db.sql;
  try {
    await on`SELECT pg_advisory_lock(${STARTUP_LOCK_ID})`;
    return await fn();
  } finally {
    await on`SELECT pg_advisory_unlock(${STARTUP_LOCK_ID})`.catch(() => {});
    conn?.release();
  }
}
