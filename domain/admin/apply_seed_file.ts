/** Apply a seed file (docs/seeding.md) as the server does at start: idempotent, keyed. */
import { applySeed, type SeedReport } from "../seed/apply_seed.ts";
import { Invalid } from "../errors.ts";
import type { AdminDeps } from "./admin_deps.ts";

export async function applySeedFile(deps: AdminDeps, path: string): Promise<SeedReport> {
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(path));
  } catch (err) {
    const reason = err instanceof Deno.errors.NotFound
      ? `The file ${path} does not exist.`
      : `The file ${path} is not valid JSON.`;
    throw Invalid.field("file", reason);
  }
  return await applySeed(deps, raw);
}
