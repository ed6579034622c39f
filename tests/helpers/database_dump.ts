/**
 * A full text dump of a test server's database, to search for what must be
 * gone (erasure). On PostgreSQL it is `pg_dump` when installed (data and
 * schema, every table); otherwise, and on the embedded database, every row of
 * every table of the public schema selected as text (`SELECT t::text`),
 * which includes jsonb, arrays and tsvectors as they are stored.
 */
import type { TestServer } from "./test_server.ts";

export async function dumpDatabase(s: TestServer): Promise<string> {
  const url = s.env.DATABASE_URL;
  if (url && await hasPgDump()) {
    const out = await new Deno.Command("pg_dump", {
      args: ["--no-owner", "--data-only", "--inserts", url],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`pg_dump failed: ${new TextDecoder().decode(out.stderr)}`);
    return new TextDecoder().decode(out.stdout);
  }
  return await selectEveryRow(s);
}

/** Every row of every public table as text, one line per row, prefixed by its table. */
export async function selectEveryRow(s: TestServer): Promise<string> {
  const sql = s.deps.sql;
  const tables = await sql<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;
  const lines: string[] = [];
  for (const { name } of tables) {
    const rows = await sql.unsafe<{ t: string }[]>(
      `SELECT t::text AS t FROM "${name.replaceAll('"', '""')}" t`,
    );
    for (const r of rows) lines.push(`${name}\t${r.t}`);
  }
  return lines.join("\n");
}

async function hasPgDump(): Promise<boolean> {
  try {
    return (await new Deno.Command("pg_dump", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output()).success;
  } catch {
    return false;
  }
}
