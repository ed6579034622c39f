/**
 * Opens what an admin command needs, exactly as the server does: the same
 * configuration, database (embedded under DATA_DIR or DATABASE_URL),
 * migrations and APP_KEY, but no HTTP, Kv or workers.
 */
import { loadConfig } from "../app/config.ts";
import { resolveAppKey } from "../app/app_key.ts";
import { openDatabase } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { importAppKey } from "../domain/auth/secrets.ts";
import type { AdminDeps } from "../domain/admin/admin_deps.ts";

export async function openAdmin(
  env: Record<string, string | undefined>,
): Promise<{ deps: AdminDeps; close(): Promise<void> }> {
  const config = loadConfig(env);
  await Deno.mkdir(config.dataDir, { recursive: true });
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
  });
  try {
    await migrate(db.sql);
    const appKey = await importAppKey(await resolveAppKey(config.appKey, config.dataDir));
    return {
      deps: {
        sql: db.sql,
        appKey,
        now: new Date(),
        webhooks: config.webhooks,
        baseUrl: config.baseUrl,
      },
      close: () => db.close(),
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
