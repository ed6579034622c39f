/**
 * Applies numbered `.sql` files from db/migrations once each, in order, under
 * a PostgreSQL advisory lock so instances starting together never race.
 */
import type { Sql, Tx } from "./client.ts";

const LOCK_ID = 7_241_001; // arbitrary, constant across releases
const DIR = new URL("./migrations/", import.meta.url);

export interface MigrationResult {
  applied: string[];
  /** pgvector could be enabled, so embeddings are stored and searched. */
  vector: boolean;
}

async function listMigrations(): Promise<{ name: string; sql: string }[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(DIR)) {
    if (entry.isFile && /^\d{4}_[a-z0-9_]+\.sql$/.test(entry.name)) names.push(entry.name);
  }
  names.sort();
  return Promise.all(
    names.map(async (name) => ({ name, sql: await Deno.readTextFile(new URL(name, DIR)) })),
  );
}

export async function migrate(sql: Sql): Promise<MigrationResult> {
  const migrations = await listMigrations();
  // One transaction holding a transaction-scoped advisory lock: a second
  // instance waits here, then finds every migration already recorded.
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set(
      (await tx<{ name: string }[]>`SELECT name FROM schema_migrations`).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (name) VALUES (${m.name})`;
      applied.push(m.name);
    }
    const vector = await enableVector(tx);
    return { applied, vector };
  });
}

/**
 * pgvector is optional on a real server: when the extension is available the
 * chunk table gains an embedding column; otherwise retrieval is full-text only.
 */
async function enableVector(sql: Tx): Promise<boolean> {
  const [avail] = await sql<{ ok: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS ok`;
  if (!avail?.ok) return false;
  // A savepoint, so a refused CREATE EXTENSION (no privilege) leaves the migration intact.
  try {
    await sql.savepoint(async (sp) => {
      await sp`CREATE EXTENSION IF NOT EXISTS vector`;
      await sp`ALTER TABLE knowledge_chunks ADD COLUMN IF NOT EXISTS embedding vector`;
      await sp`ALTER TABLE catalogue_products ADD COLUMN IF NOT EXISTS embedding vector`;
    });
    return true;
  } catch {
    return false;
  }
}
