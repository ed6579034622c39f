/**
 * A migrated embedded database to copy instead of creating one per test
 * server, as `CREATE DATABASE … TEMPLATE` does on PostgreSQL.
 *
 * Why: a fresh PGlite runs initdb (2.5 to 5 s on CI's two cores, more under
 * the suite's parallel load) and then every migration; reopening a copy takes
 * 0.3 s. The template is built once per set of migrations by the same code a
 * first start runs (`openDatabase` + `migrate`), so a broken migration still
 * fails every test on the embedded pass. Test processes running in parallel
 * build it once between them, under an OS file lock.
 */
import { openDatabase } from "../../db/client.ts";
import { migrate } from "../../db/migrate.ts";

const MIGRATIONS = new URL("../../db/migrations/", import.meta.url);
const DENO_JSON = new URL("../../deno.json", import.meta.url);

/**
 * A digest of every migration's name and text and of the PGlite packages pinned in
 * deno.json: a changed migration, or a PGlite whose data files may differ, makes a new
 * template.
 */
async function migrationsDigest(): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(MIGRATIONS)) if (entry.isFile) names.push(entry.name);
  names.sort();
  const imports: Record<string, string> = JSON.parse(await Deno.readTextFile(DENO_JSON)).imports;
  const parts: string[] = Object.entries(imports)
    .filter(([name]) => name.startsWith("@electric-sql/"))
    .map(([name, spec]) => `${name}=${spec}`).sort();
  for (const name of names) parts.push(name, await Deno.readTextFile(new URL(name, MIGRATIONS)));
  const bytes = new TextEncoder().encode(parts.join("\0"));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  const pending: Promise<void>[] = [];
  for await (const entry of Deno.readDir(from)) {
    const src = `${from}/${entry.name}`;
    const dst = `${to}/${entry.name}`;
    if (entry.isDirectory) pending.push(copyDir(src, dst));
    else if (entry.isFile) pending.push(Deno.copyFile(src, dst));
  }
  await Promise.all(pending);
}

let templatePath: Promise<string> | null = null;

/** The template's `pg` directory, built on first use (once per migrations digest and machine). */
function embeddedTemplate(): Promise<string> {
  return templatePath ??= (async () => {
    const root = `${
      Deno.env.get("TMPDIR") ?? "/tmp"
    }/parley-test-template-${await migrationsDigest()}`;
    const ready = `${root}/pg`;
    if (await exists(`${root}/ready`)) return ready;
    await Deno.mkdir(root, { recursive: true });
    const lock = await Deno.open(`${root}.lock`, { create: true, write: true });
    await lock.lock(true);
    try {
      if (!(await exists(`${root}/ready`))) {
        const building = `${root}/building`;
        await Deno.remove(building, { recursive: true }).catch(() => {});
        const db = await openDatabase({ databaseUrl: null, dataDir: building });
        try {
          await migrate(db.sql);
        } finally {
          await db.close();
        }
        await Deno.remove(ready, { recursive: true }).catch(() => {});
        await Deno.rename(`${building}/pg`, ready);
        await Deno.writeTextFile(`${root}/ready`, new Date().toISOString());
      }
    } finally {
      lock.close();
    }
    return ready;
  })();
}

/** Gives `dataDir` a migrated embedded database copied from the template. */
export async function seedEmbeddedDataDir(dataDir: string): Promise<void> {
  await copyDir(await embeddedTemplate(), `${dataDir}/pg`);
}
